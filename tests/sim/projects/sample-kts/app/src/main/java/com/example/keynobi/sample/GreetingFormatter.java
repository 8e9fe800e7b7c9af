package com.example.keynobi.sample;

import java.util.Locale;

/** Formats the greeting on the main screen. Java on purpose: the sample mixes both languages. */
public final class GreetingFormatter {
    private static final String TEMPLATE = "%s, %s!";

    private final String salutation;

    public GreetingFormatter(String salutation) {
        this.salutation = salutation;
    }

    public String format(String name) {
        String trimmed = name == null ? "" : name.trim();
        if (trimmed.isEmpty()) {
            return salutation + "!";
        }
        return String.format(Locale.ROOT, TEMPLATE, salutation, trimmed);
    }
}
