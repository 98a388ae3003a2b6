package dev.cosid.jackson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cosid.IdLayout;
import dev.cosid.IdStrings;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.json.JsonMapper;

class CosIdJacksonModuleTest {

    /** An id of the default layout far above 2^53: what a browser's JSON.parse would round. */
    static final long BIG = IdLayout.MILLISECOND.compose(IdLayout.MILLISECOND.unitOf(1_900_000_000_000L), 1023, 4095);

    public record Order(@IdAsString long id, @IdAsString(IdFormat.RADIX62) Long customer, long quantity,
                        @IdAsString List<Long> lines) {
    }

    private final JsonMapper mapper = JsonMapper.builder().addModule(new CosIdJacksonModule()).build();

    @Test
    void anIdAbove2To53RoundTripsExactlyAsADecimalString() {
        assertTrue(BIG > (1L << 53));
        Order order = new Order(BIG, BIG - 1, 3, List.of(BIG, 7L));
        String json = mapper.writeValueAsString(order);
        assertEquals("{\"id\":\"" + BIG + "\",\"customer\":\"" + IdStrings.toRadix62(BIG - 1)
                + "\",\"quantity\":3,\"lines\":[\"" + BIG + "\",\"7\"]}", json);
        assertEquals(order, mapper.readValue(json, Order.class));
    }

    @Test
    void markedPropertiesAlsoReadNumbers() {
        Order read = mapper.readValue("{\"id\":" + BIG + ",\"customer\":" + BIG + ",\"quantity\":1,\"lines\":[" + BIG
                + "]}", Order.class);
        assertEquals(new Order(BIG, BIG, 1, List.of(BIG)), read);
    }

    @Test
    void aStringThatIsNotTheFieldsFormFailsNamingIt() {
        DatabindException e = assertThrows(DatabindException.class, () -> mapper.readValue(
                "{\"id\":1,\"customer\":\"not-an-id\",\"quantity\":1,\"lines\":[]}", Order.class));
        assertTrue(e.getMessage().contains("not-an-id"), e.getMessage());
        DatabindException decimal = assertThrows(DatabindException.class, () -> mapper.readValue(
                "{\"id\":\"12ab\",\"customer\":1,\"quantity\":1,\"lines\":[]}", Order.class));
        assertTrue(decimal.getMessage().contains("'12ab' is not a decimal id"), decimal.getMessage());
    }

    @Test
    void allLongsWritesEveryLongAsAStringInTheChosenForm() {
        JsonMapper all = JsonMapper.builder().addModule(CosIdJacksonModule.allLongs(IdFormat.RADIX62)).build();
        Order order = new Order(BIG, 5L, 3, List.of(BIG));
        String json = all.writeValueAsString(order);
        // the annotation still picks the form of the properties it marks
        assertEquals("{\"id\":\"" + BIG + "\",\"customer\":\"" + IdStrings.toRadix62(5) + "\",\"quantity\":\""
                + IdStrings.toRadix62(3) + "\",\"lines\":[\"" + BIG + "\"]}", json);
        assertEquals(order, all.readValue(json, Order.class));
        assertEquals(BIG, all.readValue("\"" + IdStrings.toRadix62(BIG) + "\"", Long.class));
        assertEquals(BIG, all.readValue(Long.toString(BIG), Long.class));
    }

    @Test
    void aNegativeLongCannotBeWrittenInRadix62() {
        JsonMapper all = JsonMapper.builder().addModule(CosIdJacksonModule.allLongs(IdFormat.RADIX62)).build();
        DatabindException e = assertThrows(DatabindException.class, () -> all.writeValueAsString(-5L));
        assertTrue(e.getMessage().contains("-5"), e.getMessage());
    }

    @Test
    void withoutTheModuleMarkedLongsStayNumbers() {
        String json = JsonMapper.builder().build().writeValueAsString(new Order(BIG, 1L, 1, List.of()));
        assertTrue(json.startsWith("{\"id\":" + BIG + ","), json);
    }
}
