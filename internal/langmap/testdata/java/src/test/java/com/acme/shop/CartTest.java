package com.acme.shop;

import org.junit.jupiter.api.Test;

class CartTest {
    @Test
    void addsItems() {}
}
