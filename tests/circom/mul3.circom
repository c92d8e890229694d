pragma circom 2.0.0;

// Tiny test circuit for the circom readers (tests/test_circom.cpp): a few multiplications, one
// public input, two public outputs, full-width coefficients (c - 3 gives r - 3).
template Mul3() {
    signal input a;       // private
    signal input b;       // public
    signal input c;       // private
    signal output y;      // public (output)
    signal output w;      // public (output)
    signal ab;
    signal z;
    ab <== a * b;
    y <== ab * c + 7 * a;
    z <== (a + 2 * b) * (c - 3);
    w <== z * y;
}

component main {public [b]} = Mul3();
