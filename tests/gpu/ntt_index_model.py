# A host model of src/gpu/ntt.cu's index arithmetic (pass plan, block/thread -> element mapping,
# twiddle exponents, the shared inverse-twiddle table, pre/post scaling with bit-reversed logical
# indices, the bit-reversal pass) over Z_p, p = 998244353 (2^23 | p - 1), against a naive DFT, for
# every variant and order pair and several block shapes (so that small sizes take several passes).
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

def transform(data, N, L, C, inv, inn, out, pre, post):
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
        run_pass(data, table, N, s, k, c, inv, dit,
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
                    d = x[:] if inn == 'N' else [x[brev(i, N)] for i in range(n)]
                    transform(d, N, L, C, inv, inn, out, pre, post)
                    if out == 'B': d = [d[brev(i, N)] for i in range(n)]
                    if d != want:
                        bad += 1; print('MISMATCH', L, C, N, name, inn, out, plan_groups(N, L, C))
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

print('plans', plan_groups(27, 11, 3), plan_groups(20, 11, 3), plan_groups(28, 11, 3), plan_groups(12, 11, 3))
print('bad', bad)
sys.exit(1 if bad else 0)
