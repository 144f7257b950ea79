//! No-regression probe: keccak256 of one aligned buffer whose length is a multiple of 4 (every
//! absorb takes the all-aligned path). The benchmark meters it under both keccak variants.
#![cfg_attr(target_os = "zkvm", no_main)]
#![cfg_attr(target_os = "zkvm", no_std)]

openvm::entry!(main);

#[repr(C, align(8))]
struct Buf([u8; 136 * 64]);

fn main() {
    let mut buf = Buf([0; 136 * 64]);
    for (k, x) in buf.0.iter_mut().enumerate() {
        *x = k as u8;
    }
    let digest = mpt::keccak256(&buf.0);
    openvm::io::reveal_u32(
        u32::from_le_bytes([digest[0], digest[1], digest[2], digest[3]]),
        0,
    );
}
