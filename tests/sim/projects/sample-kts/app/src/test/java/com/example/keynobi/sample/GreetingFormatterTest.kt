package com.example.keynobi.sample

import org.junit.Assert.assertEquals
import org.junit.Test

class GreetingFormatterTest {
    private val formatter = GreetingFormatter("Hi")

    @Test
    fun formatsName() {
        assertEquals("Hi, Ada!", formatter.format(" Ada "))
    }

    @Test
    fun emptyNameKeepsSalutation() {
        assertEquals("Hi!", formatter.format("   "))
    }
}
