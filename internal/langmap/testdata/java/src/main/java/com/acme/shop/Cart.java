package com.acme.shop;

import java.util.List;
import java.util.*;
import static java.util.Objects.requireNonNull;
import com.acme.shop.model.Item;

/**
 * class NotReal { void no() {} }
 */
@Entity
@Table(name = "carts")
public final class Cart<T extends Comparable<T>> extends Base implements Iterable<T> {
    private final List<T> items = new ArrayList<>();
    private static final String SQL = "class Fake { void no() {} }";
    private final Runnable r = new Runnable() {
        public void run() {}
    };
    private char brace = '{';

    static {
        init();
    }

    public Cart() {
        super();
    }

    @Override
    public Iterator<T> iterator() {
        return items.iterator();
    }

    public <R> List<R> map(java.util.function.Function<T, R> fn,
                           int limit)
            throws IllegalStateException {
        String block = """
            void inBlock() { }
            """;
        return null;
    }

    abstract void pending();

    public static class Line {
        void inner() {}
    }

    enum Status { OPEN, CLOSED }
}

interface Pricing {
    long price(int qty);
    default long twice(int qty) { return 2 * price(qty); }
}

enum Currency {
    EUR("€") {
        @Override String symbol() { return "E"; }
    },
    USD("$");

    private final String sign;

    Currency(String sign) { this.sign = sign; }

    String symbol() { return sign; }
}

record Money(long cents, Currency currency) implements Comparable<Money> {
    public Money {
        if (cents < 0) throw new IllegalArgumentException();
    }
    public int compareTo(Money o) { return Long.compare(cents, o.cents); }
}

@interface Audited {
    String value() default "";
}
