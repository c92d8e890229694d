pragma circom 2.0.0;

// Full-width benchmark circuit for bench/snarkjs-compare.sh: s' = s (s + 1) + k_i, one
// multiplication per step, every signal a full field element (like cuzk's built-in chain:N).
template Chain(n) {
    signal input x;
    signal output y;
    signal s[n + 1];
    s[0] <== x;
    for (var i = 0; i < n; i++) {
        s[i + 1] <== s[i] * (s[i] + 1) + (i * 7919 + 12345);
    }
    y <== s[n];
}

component main {public [x]} = Chain(STEPS);
