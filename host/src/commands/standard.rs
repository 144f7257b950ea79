//! `host stateless-input` and `host run --stateless-input`: the standard stateless I/O
//! (EIP-8025), written from a block and run by the standard guest.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use host::guest::{Crypto, GuestSpec, Keccak, Program};
use host::report::Mode;
use host::standard::{run_standard, stateless_input};
use host::target::Target;
use stateless_ssz::{encode_input, Fork, StatelessValidationResult};

use super::{exit_status, resolve};

#[derive(Args)]
pub struct StatelessInputArgs {
    #[command(flatten)]
    pub target: Target,
    /// Where to write the input bytes (`statelessInputBytes`).
    #[arg(long)]
    pub out: PathBuf,
}

impl StatelessInputArgs {
    pub fn exec(self) -> anyhow::Result<ExitCode> {
        let resolved = resolve(&self.target)?;
        let data = &resolved.data;
        let input = stateless_input(&data.block_rlp, &data.witness, &resolved.chain)?;
        let bytes = encode_input(&input);
        std::fs::write(&self.out, &bytes)
            .map_err(|e| anyhow::anyhow!("writing {}: {e}", self.out.display()))?;
        let root = input.request_root(&stateless_ssz::Sha2Hasher);
        println!(
            "block {}: {} schema {:#06x}, chain id {}, {} transactions, {} trie nodes, {} codes, {} headers",
            data.id,
            input.fork.name(),
            input.fork.schema_id(),
            input.chain_id,
            input.public_keys.len(),
            input.witness.state.len(),
            input.witness.codes.len(),
            input.witness.headers.len(),
        );
        println!(
            "  new_payload_request_root 0x{}",
            alloy_primitives::hex::encode(root)
        );
        println!("  {} bytes -> {}", bytes.len(), self.out.display());
        Ok(ExitCode::SUCCESS)
    }
}

fn print_result(result: &StatelessValidationResult) {
    let fork = Fork::from_schema_id(result.schema_id).map_or("none", Fork::name);
    println!(
        "  successful_validation    {}",
        result.successful_validation
    );
    println!(
        "  new_payload_request_root 0x{}",
        alloy_primitives::hex::encode(result.new_payload_request_root)
    );
    println!("  chain_id                 {}", result.chain_id);
    println!(
        "  schema_id                {:#06x} ({fork})",
        result.schema_id
    );
    println!(
        "  bytes                    0x{}",
        alloy_primitives::hex::encode(result.to_bytes())
    );
}

/// `host run --stateless-input F`: the standard guest on the bytes of `path`.
pub fn run(path: &Path, mode: Mode, keccak: Keccak, crypto: Crypto) -> anyhow::Result<ExitCode> {
    let bytes =
        std::fs::read(path).map_err(|e| anyhow::anyhow!("reading {}: {e}", path.display()))?;
    let spec = (mode != Mode::Native)
        .then(|| GuestSpec::program(Program::Standard, keccak).with_crypto(crypto));
    let run = run_standard(&bytes, spec)?;
    let result = run.native.result;
    println!("{} ({} bytes), natively:", path.display(), bytes.len());
    print_result(&result);
    match &run.native.outcome {
        Ok(out) => println!(
            "  VALID: block 0x{}, {} transactions, {} gas",
            alloy_primitives::hex::encode(out.block_hash),
            out.tx_count,
            out.gas_used
        ),
        Err(e) => println!("  {}: {e}", e.verdict().name()),
    }
    if let Some((_, metering)) = &run.vm {
        println!(
            "in the VM (standard guest, keccak {}, crypto {}): the same result; {} instructions, {} main cells, {} segment(s), {:.2} GB proving-memory estimate",
            keccak.name(),
            crypto.name(),
            metering.instructions,
            metering.main_cells,
            metering.segments.len(),
            metering.memory_bytes as f64 / 1e9
        );
    }
    Ok(exit_status(result.successful_validation))
}
