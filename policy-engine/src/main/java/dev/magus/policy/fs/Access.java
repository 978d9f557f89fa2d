package dev.magus.policy.fs;

import dev.magus.events.Operation;

/** One access bit. Each bit grants its access alone: readable does not mean executable. */
public enum Access {
    READ(1, 'r', Operation.READ), WRITE(2, 'w', Operation.WRITE), EXEC(4, 'x', Operation.EXEC);

    private final int bit;
    private final char letter;
    private final Operation operation;

    Access(int bit, char letter, Operation operation) {
        this.bit = bit;
        this.letter = letter;
        this.operation = operation;
    }

    public int bit() {
        return bit;
    }

    public char letter() {
        return letter;
    }

    public Operation operation() {
        return operation;
    }
}
