//! The guest's `memcmp` and `bcmp`: a word at a time where both operands allow it.
//!
//! Every `==` on hashes, addresses and keys that the compiler does not unroll is a call to
//! `bcmp` or `memcmp`: the witness index's 32-byte hashes, revm's account and slot maps, the
//! storage tries' map. OpenVM's runtime replaces `memcpy` and `memset` with musl's unrolled
//! ones, but not these two, so the guest gets `compiler_builtins`' portable loop: one byte per
//! iteration, 7 instructions per equal byte on this core, 226 for two equal hashes. That was
//! 3.3–3.4% of the guest's instructions on the shared mainnet blocks (`host profile --callers
//! memcmp`, BENCHMARKS.md).
//!
//! Here, when both operands sit at the same offset in a word (almost always: hashes and
//! addresses live in word-aligned structs), the bytes are compared four words per iteration
//! (the guest only loads whole words from aligned addresses); the first differing word, any
//! bytes before the first word boundary and any tail are compared byte by byte, so the sign is
//! `memcmp`'s. Operands at different offsets keep the byte loop. Written here because no crate
//! offers a guest `memcmp`; `compare` is the whole implementation, tested natively against
//! the slices' own ordering.

/// `memcmp`: 0 if the `n` bytes at `a` and `b` are equal, else the difference of the first
/// pair of bytes that differ (as unsigned bytes).
///
/// # Safety
/// `a` and `b` are valid for reads of `n` bytes.
#[inline(always)]
pub unsafe fn compare(a: *const u8, b: *const u8, n: usize) -> i32 {
    let mut i = 0;
    // SAFETY (the block): every read is at `i < n` (bytes) or within `i + 4 <= n` /
    // `i + 16 <= n` (words), inside both operands; word reads are at addresses that are
    // multiples of 4: `a + i` is aligned after the head, and `b + i` with it, as
    // `a ≡ b (mod 4)`.
    unsafe {
        if (a as usize ^ b as usize) & 3 == 0 {
            let head = ((a as usize).wrapping_neg() & 3).min(n);
            while i < head {
                let (x, y) = (*a.add(i), *b.add(i));
                if x != y {
                    return i32::from(x) - i32::from(y);
                }
                i += 1;
            }
            let word = |at: usize| -> (u32, u32) {
                (
                    (a.add(at) as *const u32).read(),
                    (b.add(at) as *const u32).read(),
                )
            };
            'words: {
                while n - i >= 16 {
                    for k in [0, 4, 8, 12] {
                        let (x, y) = word(i + k);
                        if x != y {
                            i += k;
                            break 'words;
                        }
                    }
                    i += 16;
                }
                while n - i >= 4 {
                    let (x, y) = word(i);
                    if x != y {
                        break 'words;
                    }
                    i += 4;
                }
            }
        }
        while i < n {
            let (x, y) = (*a.add(i), *b.add(i));
            if x != y {
                return i32::from(x) - i32::from(y);
            }
            i += 1;
        }
    }
    0
}

/// The guest's `memcmp`, in place of `compiler_builtins`' weak one.
///
/// # Safety
/// As C's `memcmp`: `a` and `b` are valid for reads of `n` bytes.
#[cfg(target_os = "zkvm")]
#[no_mangle]
pub unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    // SAFETY: the caller's contract is `compare`'s.
    unsafe { compare(a, b, n) }
}

/// The guest's `bcmp` (zero exactly when equal, as `memcmp`), in place of `compiler_builtins`'.
///
/// # Safety
/// As C's `bcmp`: `a` and `b` are valid for reads of `n` bytes.
#[cfg(target_os = "zkvm")]
#[no_mangle]
pub unsafe extern "C" fn bcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    // SAFETY: the caller's contract is `compare`'s.
    unsafe { compare(a, b, n) }
}

#[cfg(test)]
mod tests {
    use super::compare;
    use alloc::vec::Vec;
    use core::cmp::Ordering;

    /// Bytes starting on a word boundary, so each offset below is the same offset in a word.
    #[derive(Clone, Copy)]
    #[repr(align(4))]
    struct Words([u8; 96]);

    fn sign(x: i32) -> Ordering {
        x.cmp(&0)
    }

    /// Every length up to 70, every offset of each operand in a word, equal bytes and a
    /// difference at every position (either way round): the sign is the slices' own ordering,
    /// and the value the first differing bytes' difference.
    #[test]
    fn agrees_with_slice_ordering_at_every_offset_and_length() {
        let base: Vec<u8> = (0..96u32).map(|k| (k * 37 + 11) as u8).collect();
        for n in 0..70 {
            for off_a in 0..4 {
                for off_b in 0..4 {
                    let (mut a, mut b) = (Words([0; 96]), Words([0; 96]));
                    a.0[off_a..off_a + n].copy_from_slice(&base[..n]);
                    b.0[off_b..off_b + n].copy_from_slice(&base[..n]);
                    let (sa, sb) = (&a.0[off_a..off_a + n], &b.0[off_b..off_b + n]);
                    // SAFETY: both slices are `n` bytes long.
                    assert_eq!(unsafe { compare(sa.as_ptr(), sb.as_ptr(), n) }, 0);
                    for at in 0..n {
                        for delta in [1u8, 0x80, 0xff] {
                            let mut c = b;
                            c.0[off_b + at] = c.0[off_b + at].wrapping_add(delta);
                            let sc = &c.0[off_b..off_b + n];
                            // SAFETY: both slices are `n` bytes long.
                            let got = unsafe { compare(sa.as_ptr(), sc.as_ptr(), n) };
                            assert_eq!(
                                sign(got),
                                sa.cmp(sc),
                                "n {n} at {at} offsets {off_a} {off_b}"
                            );
                            assert_eq!(got, i32::from(sa[at]) - i32::from(sc[at]));
                            // SAFETY: as above.
                            let back = unsafe { compare(sc.as_ptr(), sa.as_ptr(), n) };
                            assert_eq!(back, -got);
                        }
                    }
                }
            }
        }
    }

    /// Bytes after `n` are never compared, even when they differ.
    #[test]
    fn stops_at_n() {
        let a = [7u8; 40];
        let mut b = [7u8; 40];
        b[33] = 8;
        for n in 0..=33 {
            // SAFETY: both arrays are 40 bytes long.
            assert_eq!(unsafe { compare(a.as_ptr(), b.as_ptr(), n) }, 0);
        }
        // SAFETY: as above.
        assert_eq!(unsafe { compare(a.as_ptr(), b.as_ptr(), 34) }, -1);
    }
}
