pragma circom 2.0.0;

// Larger test circuit for the PCE (tests/test_pce.cpp): booleans and bit packing with
// powers-of-two coefficients (as Filecoin's gadgets do), then a cubic round function whose
// round constants are all distinct, so the circuit has more than 256 distinct coefficients
// (the PCE's 16-bit dictionary encoding). `v` is public, `x` private, `y` the public output.
template Num2Bits(n) {
    signal input in;
    signal output out[n];
    var acc = 0;
    var pow = 1;
    for (var i = 0; i < n; i++) {
        out[i] <-- (in >> i) & 1;
        out[i] * (out[i] - 1) === 0;
        acc += out[i] * pow;
        pow = pow + pow;
    }
    acc === in;
}

template Mix(rounds) {
    signal input v;
    signal input x;
    signal output y;
    component bits = Num2Bits(64);
    bits.in <== v;
    signal t2[rounds];
    signal t3[rounds];
    var cur = x;
    for (var i = 0; i < rounds; i++) {
        var k = i * i * 7919 + 12345;
        t2[i] <== (cur + k) * (cur + k);
        t3[i] <== t2[i] * (cur + k);
        cur = t3[i] + bits.out[i % 64];
    }
    y <== cur;
}

component main {public [v]} = Mix(300);
