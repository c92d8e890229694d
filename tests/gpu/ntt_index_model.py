# A host model of src/gpu/ntt.cu's index arithmetic (pass plan, block/thread -> element mapping,
# twiddle exponents, the shared inverse-twiddle table, pre/post scaling with bit-reversed logical
# indices, the bit-reversal pass) over Z_p, p = 998244353 (2^23 | p - 1), against a naive DFT, for
# every variant and order pair and several block shapes (so that small sizes take several passes),
# for both pass kernels (smem: one stage per shared-memory step; regs: rounds of 3 stages in
# registers with a swizzled shared-memory exchange), plus the regs kernel's bank conflicts.
# It mirrors the kernel line by line; run it after changing the indexing: python3 ntt_index_model.py
# (exit status 1 on a mismatch). The device itself is checked by test_gpu_ntt.
import random, sys
P = 998244353; G = 3
def root(N): return pow(G, (P-1) >> N, P)
def brev(i, N): return int(format(i, '0%db' % N)[::-1], 2) if N else 0

def plan_groups(N, L, C):
    cap = L - C
    groups = 1 + ((N - L + cap - 1)//cap if N > L else 0)
    k = [0]*groups; left = N
    while left > 0:
        for g in range(groups):
            if left > 0 and k[g] < (L if g == 0 else cap):
                k[g] += 1; left -= 1
    out = []; s = 0
    for g in range(groups):
        out.append((s, k[g], 0 if s == 0 else min(s, C))); s += k[g]
    return out

def powtab(c, g, k): return c * pow(g, k, P) % P

def run_pass(data, table, N, s, k, c, inv, dit, pre, post):
    E = 1 << (k + c); cmask = (1 << c) - 1
    nblocks = 1 << (N - k - c)
    for B in range(nblocks):
        b_low = B & ((1 << (s - c)) - 1); b_high = B >> (s - c)
        base = (b_high << (s + k)) | (b_low << c)
        sm = [0]*E
        for l in range(E):
            i = base | ((l >> c) << s) | (l & cmask)
            v = data[i]
            if pre: v = v * powtab(pre[0], pre[1], brev(i, N) if pre[2] else i) % P
            sm[l] = v
        for step in range(k):
            q = step if dit else k - 1 - step
            b = s + q
            for u in range(E // 2):
                col = u & cmask; tt = u >> c
                t_low = tt & ((1 << q) - 1)
                t0 = ((tt >> q) << (q + 1)) | t_low
                l0 = (t0 << c) | col; l1 = l0 + (1 << (q + c))
                e = ((t_low << s) | (b_low << c) | col) << (N - 1 - b)
                x0, x1 = sm[l0], sm[l1]
                if e == 0: w = 1
                elif not inv: w = table[e]
                else: w = (-table[(1 << (N - 1)) - e]) % P
                if dit:
                    t = x1 * w % P; y0 = (x0 + t) % P; y1 = (x0 - t) % P
                else:
                    y0 = (x0 + x1) % P; y1 = (x0 - x1) * w % P
                sm[l0], sm[l1] = y0, y1
        for l in range(E):
            i = base | ((l >> c) << s) | (l & cmask)
            v = sm[l]
            if post: v = v * powtab(post[0], post[1], brev(i, N) if post[2] else i) % P
            data[i] = v

# ntt_regs_kernel: rounds of up to 3 stage bits in registers, shared memory (slot-swizzled) between
# rounds, first round from global memory, last round to it. sm is indexed by smem_slot(l) only.
def smem_slot(l):
    x = l >> 5
    return l ^ ((31 if x & 1 else 0) ^ (21 if x & 2 else 0) ^ (25 if x & 4 else 0))

# Round r (numbered from the low stage bits): (lowest stage bit q_lo, width).
def round_shape(k, dit, r):
    rounds = (k + 2) // 3; nl = k - 3 * (rounds - 1)
    narrow = rounds // 2 if rounds >= 3 else (rounds - 1 if dit else 0)
    return (3 * r - (3 - nl if r > narrow else 0), nl if r == narrow else 3)

def regs_round(data, sm, table, N, s, k, c, inv, dit, pre, post, E, base, b_low, q_lo, lg, first, last):
    R = 1 << lg; pos = c + q_lo; low_mask = (1 << pos) - 1; cmask = (1 << c) - 1
    gi = lambda l: base | ((l >> c) << s) | (l & cmask)
    for g in range(E // R):
        l0 = (g & low_mask) | ((g >> pos) << (pos + lg))
        x = []
        for j in range(R):
            l = l0 | (j << pos)
            if first:
                i = gi(l); v = data[i]
                if pre: v = v * powtab(pre[0], pre[1], brev(i, N) if pre[2] else i) % P
            else:
                v = sm[smem_slot(l)]
            x.append(v)
        t_base = l0 >> c; col = l0 & cmask
        for st in range(lg):
            d = st if dit else lg - 1 - st
            q = q_lo + d; b = s + q
            for j0 in range(R):
                if j0 & (1 << d): continue
                t_low = (t_base | (j0 << q_lo)) & ((1 << q) - 1)
                e = ((t_low << s) | (b_low << c) | col) << (N - 1 - b)
                x0, x1 = x[j0], x[j0 + (1 << d)]
                if e == 0: w = 1
                elif not inv: w = table[e]
                else: w = (-table[(1 << (N - 1)) - e]) % P
                if dit:
                    t = x1 * w % P; y0 = (x0 + t) % P; y1 = (x0 - t) % P
                else:
                    y0 = (x0 + x1) % P; y1 = (x0 - x1) * w % P
                x[j0], x[j0 + (1 << d)] = y0, y1
        for j in range(R):
            l = l0 | (j << pos)
            if last:
                i = gi(l); v = x[j]
                if post: v = v * powtab(post[0], post[1], brev(i, N) if post[2] else i) % P
                data[i] = v
            else:
                sm[smem_slot(l)] = x[j]

def run_pass_regs(data, table, N, s, k, c, inv, dit, pre, post):
    E = 1 << (k + c)
    for B in range(1 << (N - k - c)):
        b_low = B & ((1 << (s - c)) - 1); b_high = B >> (s - c)
        base = (b_high << (s + k)) | (b_low << c)
        sm = [None] * E
        rounds = (k + 2) // 3
        for ri in range(rounds):
            r = ri if dit else rounds - 1 - ri
            q_lo, lg = round_shape(k, dit, r)
            regs_round(data, sm, table, N, s, k, c, inv, dit, pre, post, E, base, b_low, q_lo, lg,
                       ri == 0, ri + 1 == rounds)

# Bank conflicts of the register kernel's shared-memory accesses: for every (c, k) and round, the
# worst number of lanes of one warp instruction (fixed element j and word) that share a bank.
def worst_banks(c, k, dit):
    E = 1 << (k + c); rounds = (k + 2) // 3; out = []
    for r in range(rounds):
        q_lo, lg = round_shape(k, dit, r); R = 1 << lg; pos = c + q_lo
        groups = E // R; worst = 1
        for w0 in range(0, groups, 32):
            for j in range(R):
                banks = {}
                for g in range(w0, min(w0 + 32, groups)):
                    l = ((g & ((1 << pos) - 1)) | ((g >> pos) << (pos + lg))) | (j << pos)
                    bk = smem_slot(l) % 32; banks[bk] = banks.get(bk, 0) + 1
                worst = max(worst, max(banks.values()))
        out.append((pos, lg, worst))
    return out

def bitrev_pass(data, N, tab):
    n = 1 << N
    for i in range(n):
        r = brev(i, N)
        if i < r:
            x, y = data[i], data[r]
            if tab:
                x = x * powtab(tab[0], tab[1], r if tab[2] else i) % P
                y = y * powtab(tab[0], tab[1], i if tab[2] else r) % P
            data[i], data[r] = y, x
        elif i == r and tab:
            data[i] = data[i] * powtab(tab[0], tab[1], i) % P

def transform(data, N, L, C, inv, inn, out, pre, post, regs=False):
    w = root(N); table = [pow(w, j, P) for j in range(1 << (N - 1))]
    dit = inn == 'B'
    produced = 'N' if dit else 'B'
    swap_after = produced != out
    pre_tab = (pre[0], pre[1], inn == 'B') if pre else None
    if swap_after: post_tab = (post[0], post[1], out == 'N') if post else None
    else: post_tab = (post[0], post[1], out == 'B') if post else None
    gs = plan_groups(N, L, C); np_ = len(gs)
    for pi in range(np_):
        s, k, c = gs[pi] if dit else gs[np_ - 1 - pi]
        (run_pass_regs if regs else run_pass)(data, table, N, s, k, c, inv, dit,
                 pre_tab if pi == 0 else None, post_tab if (pi + 1 == np_ and not swap_after) else None)
    if swap_after: bitrev_pass(data, N, post_tab)

def dft(x, w):
    n = len(x); pw = [pow(w, k, P) for k in range(n)]
    return [sum(x[j] * pw[(i*j) % n] for j in range(n)) % P for i in range(n)]

random.seed(1)
bad = 0
for (L, C) in [(11, 3), (4, 2), (3, 1), (5, 3)]:
    for N in range(1, 10 if L < 11 else 12):
        n = 1 << N; w = root(N); winv = pow(w, P-2, P); ninv = pow(n, P-2, P)
        x = [random.randrange(P) for _ in range(n)]
        shift = random.randrange(1, P); sinv = pow(shift, P-2, P)
        ref = {
          'fwd': (dft(x, w), False, None, None),
          'inv': ([v * ninv % P for v in dft(x, winv)], True, None, (ninv, 1)),
          'cfwd': (dft([x[j] * pow(shift, j, P) % P for j in range(n)], w), False, (1, shift), None),
          'cinv': ([v * ninv % P * pow(sinv, i, P) % P for i, v in enumerate(dft(x, winv))], True, None, (ninv, sinv)),
        }
        for name, (want, inv, pre, post) in ref.items():
            for inn in 'NB':
                for out in 'NB':
                  for regs in (False, True):
                    d = x[:] if inn == 'N' else [x[brev(i, N)] for i in range(n)]
                    transform(d, N, L, C, inv, inn, out, pre, post, regs)
                    if out == 'B': d = [d[brev(i, N)] for i in range(n)]
                    if d != want:
                        bad += 1; print('MISMATCH', 'regs' if regs else 'smem', L, C, N, name, inn, out,
                                        plan_groups(N, L, C))
    print('done L', L, 'C', C, file=sys.stderr)
# The H sequences of h_poly.cu against the CPU provers' (ifft, coset_fft, a*b - c [/ Z], coset_ifft).
def ref_h(x3, N, shift, zcash):
    n = 1 << N; w = root(N); winv = pow(w, P-2, P); ninv = pow(n, P-2, P)
    ev = []
    for x in x3:
        coef = [v * ninv % P for v in dft(x, winv)]
        ev.append(dft([coef[j] * pow(shift, j, P) % P for j in range(n)], w))
    q = [(ev[0][i] * ev[1][i] - ev[2][i]) % P for i in range(n)]
    if not zcash: return q
    zinv = pow((pow(shift, n, P) - 1) % P, P-2, P)
    q = [v * zinv % P for v in q]
    sinv = pow(shift, P-2, P)
    return [v * ninv % P * pow(sinv, i, P) % P for i, v in enumerate(dft(q, winv))]

def gpu_h(x3, N, shift, zcash, L, C):
    n = 1 << N; ninv = pow(n, P-2, P)
    v = [x[:] for x in x3]
    for d in v:
        transform(d, N, L, C, True, 'N', 'B', None, (ninv, shift))
        transform(d, N, L, C, False, 'B', 'N', None, None)
    a, b, c = v
    if not zcash:
        return [(a[i] * b[i] - c[i]) % P for i in range(n)]
    zinv = pow((pow(shift, n, P) - 1) % P, P-2, P)
    f = [(a[i] * b[i] - c[i]) * zinv % P for i in range(n)]
    out = [0] * n
    for i in range(n): out[brev(i, N)] = f[i]  # ab_minus_c_bitrev_kernel
    transform(out, N, L, C, True, 'B', 'N', None, (ninv, pow(shift, P-2, P)))
    return out

for (L, C) in [(11, 3), (4, 2)]:
    for N in range(1, 10):
        x3 = [[random.randrange(P) for _ in range(1 << N)] for _ in range(3)]
        shift = random.randrange(2, P)
        for zcash in (True, False):
            if gpu_h(x3, N, shift, zcash, L, C) != ref_h(x3, N, shift, zcash):
                bad += 1; print('H MISMATCH', L, C, N, zcash)

# The register kernel on the real plan (L = 11, C = 3) at sizes with 2 and 3 passes (13: 7 + 6,
# 20: 7 + 7 + 6), natural -> bit-reversed and back, against the smem model (which matched the DFT
# above for small sizes): exercises rounds at pos = 3 and the swizzle with E = 1024 and 2048.
for N in (12, 13, 14):
    x = [random.randrange(P) for _ in range(1 << N)]
    for inv in (False, True):
        for inn, out in (('N', 'B'), ('B', 'N')):
            a = x[:]; b = x[:]
            transform(a, N, 11, 3, inv, inn, out, None, (5, 7))
            transform(b, N, 11, 3, inv, inn, out, None, (5, 7), True)
            if a != b: bad += 1; print('REGS != SMEM', N, inv, inn, out)

# Shared-memory bank conflicts of the register kernel (worst lanes per bank), every block shape the
# plan produces for 2^1..2^28, and the c = 1, 2 shapes of the small test plans.
conflicts = {}
for N in range(1, 29):
    for (s, k, c) in plan_groups(N, 11, 3) + [(1, k, 1) for k in range(1, 11)] + [(2, k, 2) for k in range(1, 10)]:
        for dit in (False, True):
            for (pos, lg, worst) in worst_banks(c, k, dit):
                if worst > 1: conflicts[(c, k, dit, pos, lg)] = worst
print('bank conflicts (c, k, dit, pos, r) -> worst lanes per bank:', conflicts or 'none')
print('rounds (q_lo, width), DIT order: k=11', [round_shape(11, True, r) for r in range(4)],
      'k=8', [round_shape(8, True, r) for r in range(3)], 'k=5 dif', [round_shape(5, False, r) for r in range(2)])

print('plans', plan_groups(27, 11, 3), plan_groups(20, 11, 3), plan_groups(28, 11, 3), plan_groups(12, 11, 3))
print('bad', bad)
sys.exit(1 if bad else 0)
