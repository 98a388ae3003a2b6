package dev.cosid.spring.boot;

import dev.cosid.lease.LeaseStore;

/** A lease store on a connection the application already has, chosen by a word in {@code cosid.store}. */
interface CosIdStoreSource {

    /** Returns the word in {@code cosid.store} that chooses this source, such as {@code datasource}. */
    String name();

    /** Opens the store; the caller closes it, which leaves the application's connection open. */
    LeaseStore open();
}
