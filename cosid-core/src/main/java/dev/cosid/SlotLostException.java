package dev.cosid;

/**
 * The runtime's lease on its slot was lost; no id is issued until the keeper binds a new slot.
 *
 * <h2>Example</h2>
 * <pre>{@code
 * try {
 *     long id = ids.nextId();
 * } catch (SlotLostException e) {
 *     // the keeper is already acquiring a new slot; try again shortly
 * }
 * }</pre>
 */
public final class SlotLostException extends IdUnavailableException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message the namespace, slot and fence that were lost
     */
    public SlotLostException(String message) {
        super(Reason.SLOT_LOST, message);
    }
}
