//! `host stateless-input`, and `host run` / `prove` / `verify` of the standard guest: the
//! standard stateless I/O (EIP-8025), written from a block, run, proved and verified.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use host::guest::{Crypto, GuestSpec, Keccak, Program};
use host::print;
use host::proof::{Limits, ProofFile, ProofKind};
use host::report::Mode;
use host::standard::{run_standard_within, stateless_input};
use host::target::Target;
use stateless_ssz::{encode_input, Fork, StatelessValidationResult};

use super::{exit_status, resolve};

#[derive(Args)]
pub struct StatelessInputArgs {
    #[command(flatten)]
    pub target: Target,
    /// Where to write the input bytes (`statelessInputBytes`); with `--ef-file`, a directory
    /// that gets `<CASE>-<BLOCK INDEX>.ssz` per block.
    #[arg(long)]
    pub out: PathBuf,
    /// Instead of a block: every block of this EF blockchain test fixture's case `--ef-case`,
    /// as `host ef-tests` builds their standard input (invalid blocks included).
    #[arg(long, requires = "ef_case")]
    pub ef_file: Option<PathBuf>,
    /// The case of `--ef-file`.
    #[arg(long, requires = "ef_file")]
    pub ef_case: Option<String>,
}

impl StatelessInputArgs {
    pub fn exec(self) -> anyhow::Result<ExitCode> {
        if let (Some(file), Some(case)) = (&self.ef_file, &self.ef_case) {
            return ef_inputs(file, case, &self.out);
        }
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

/// `host stateless-input --ef-file F --ef-case NAME --out DIR`.
fn ef_inputs(file: &Path, case: &str, dir: &Path) -> anyhow::Result<ExitCode> {
    std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
    let mut written = Vec::new();
    let mut index = 0;
    let results = host::ef_tests::run_file_cases(file, |name| name == case, &mut |block| {
        if let Some(bytes) = block.standard.ours {
            let path = dir.join(format!("{case}-{index}.ssz"));
            let verdict = block.result.as_ref().map_or_else(
                |e| format!("{}: {e}", e.verdict().name()),
                |_| "valid".into(),
            );
            written.push((path, bytes.to_vec(), verdict));
        }
        index += 1;
    });
    if results.is_empty() {
        anyhow::bail!("{} has no case {case}", file.display());
    }
    for (path, bytes, verdict) in &written {
        std::fs::write(path, bytes).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        println!("{} bytes -> {} ({verdict})", bytes.len(), path.display());
    }
    Ok(exit_status(!written.is_empty()))
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

/// How `host run --stateless-input` runs the standard guest.
pub struct How {
    pub mode: Mode,
    pub keccak: Keccak,
    pub crypto: Crypto,
    /// Print the per-AIR table.
    pub airs: bool,
    /// The instruction budget, checked before the measured run.
    pub budget: Option<u64>,
}

/// `host run --stateless-input F`: the standard guest on the bytes of `path`.
pub fn run(path: &Path, how: How) -> anyhow::Result<ExitCode> {
    let How {
        mode,
        keccak,
        crypto,
        airs,
        budget,
    } = how;
    let bytes = read_input(path)?;
    let spec = (mode != Mode::Native)
        .then(|| GuestSpec::program(Program::Standard, keccak).with_crypto(crypto));
    let run = run_standard_within(&bytes, spec, budget)?;
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
        if airs {
            print!("{}", print::airs_table(&metering.airs));
        }
    }
    Ok(exit_status(result.successful_validation))
}

pub(super) fn read_input(path: &Path) -> anyhow::Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| anyhow::anyhow!("reading {}: {e}", path.display()))
}

/// `host prove --stateless-input F`: a proof of the standard guest on the bytes of `path`,
/// whatever its result.
pub fn prove(
    path: &Path,
    keccak: Keccak,
    limits: Limits,
    kind: ProofKind,
    out: Option<PathBuf>,
) -> anyhow::Result<ExitCode> {
    let bytes = read_input(path)?;
    let (file, report, result) = host::proof::prove_standard(&bytes, keccak, limits, kind)?;
    let name = path.file_stem().map_or_else(
        || "stateless-input".to_owned(),
        |s| s.to_string_lossy().into_owned(),
    );
    let out = out.unwrap_or_else(|| PathBuf::from(format!("{name}.proof")));
    host::proof::write(&out, &file)?;
    print::print_proved(&path.display().to_string(), &file, &out, &report);
    println!("  result (proved, the same natively):");
    print_result(&result);
    Ok(ExitCode::SUCCESS)
}

/// `host verify` of a standard-guest proof. Exit statuses: 0 a sound proof that the block is
/// valid under the expected chain, 1 a proof that does not verify, 2 a sound proof that a block
/// of another chain is valid, 4 a sound proof that the block is invalid (`INVALID (proved)`,
/// also for input that does not decode).
pub fn verify(
    path: &Path,
    file: &ProofFile,
    chain: Option<&str>,
    rebuild: bool,
) -> anyhow::Result<ExitCode> {
    let (chain, chain_name) = super::expected_chain(chain)?;
    let verdict = host::proof::verify_standard(file, rebuild).map_err(|e| e.to_string());
    let code = print::print_verified(path, file, &verdict, print_result);
    let Ok(result) = verdict else {
        return Ok(code);
    };
    if !result.successful_validation {
        let why = if result == StatelessValidationResult::UNDECODABLE {
            "the input does not decode"
        } else {
            "the block does not validate"
        };
        println!("  block INVALID (proved): {why}");
        return Ok(ExitCode::from(4));
    }
    if result.chain_id != chain.chain_id {
        println!(
            "  block VALID (proved) on chain id {}, OTHER CHAIN: not the expected {chain_name} ({})",
            result.chain_id, chain.chain_id
        );
        return Ok(ExitCode::from(2));
    }
    println!(
        "  block VALID (proved) on {chain_name} (chain id {})",
        chain.chain_id
    );
    Ok(ExitCode::SUCCESS)
}
