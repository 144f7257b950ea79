//! Native validation time of the real blocks, in release mode: `cargo bench -p tests`.
//! Prints figures; asserts nothing about time.

use std::time::{Duration, Instant};

use program::ChainConfig;
use tests::{mainnet_block, MAINNET};

fn main() {
    let chain = ChainConfig::mainnet();
    for (number, _) in &MAINNET[..2] {
        let data = mainnet_block(*number);
        let mut times: Vec<Duration> = (0..10)
            .map(|_| {
                let started = Instant::now();
                program::validate_block(&data.block_rlp, &data.witness, &chain)
                    .expect("valid block");
                started.elapsed()
            })
            .collect();
        times.sort();
        println!(
            "native validation of block {number}: median {:.1} ms, min {:.1} ms (10 runs)",
            times[5].as_secs_f64() * 1e3,
            times[0].as_secs_f64() * 1e3
        );
    }
}
