//! `host stateless-input`, and `host run` / `prove` / `verify` of the standard guest: the
//! standard stateless I/O (EIP-8025), written from a block, run, proved and verified.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use host::print;
use host::report::Mode;
use host::target::Target;
use prover::guest::{Crypto, GuestSpec, Keccak, Program};
use prover::proof::binding::schema_name;
use prover::proof::{Limits, ProofKind};
use prover::standard::{run_standard_within, stateless_input};
use stateless_ssz::{encode_input, StatelessValidationResult};

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
            let path = dir.join(format!("{}-{index}.ssz", file_stem_of(case)));
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

/// A file name for an EF case: the name itself when it is a plain name of at most 120 bytes;
/// otherwise every character but ASCII letters, digits, `.`, `_` and `-` made `_`
/// (execution-spec-tests names hold `/`, `:`, `[`), cut to 120 bytes (a name can pass 255),
/// then the first 8 hex digits of the full name's keccak, so two cases never share a file.
fn file_stem_of(case: &str) -> String {
    let safe: String = case
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '.' | '_' | '-' => c,
            _ => '_',
        })
        .collect();
    if safe.len() <= 120 && safe == case {
        return safe;
    }
    let hash = alloy_primitives::keccak256(case.as_bytes());
    let cut = &safe[..safe.len().min(120)];
    format!("{cut}-{}", &alloy_primitives::hex::encode(hash)[..8])
}

pub(super) fn print_result(result: &StatelessValidationResult) {
    let fork = schema_name(result.schema_id);
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
    /// Where to write the run as JSON.
    pub json: Option<PathBuf>,
}

/// `host run --stateless-input F`: the standard guest on the bytes of `path`.
pub fn run(path: &Path, how: How) -> anyhow::Result<ExitCode> {
    let How {
        mode,
        keccak,
        crypto,
        airs,
        budget,
        json,
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
    if let Some(out) = &json {
        let hex = |b: &[u8]| format!("0x{}", alloy_primitives::hex::encode(b));
        let native = match &run.native.outcome {
            Ok(out) => serde_json::json!({
                "verdict": "valid",
                "block_hash": hex(out.block_hash.as_slice()),
                "tx_count": out.tx_count,
                "gas_used": out.gas_used,
            }),
            Err(e) => serde_json::json!({ "verdict": e.verdict().name(), "error": e.to_string() }),
        };
        let report = serde_json::json!({
            "input": path.display().to_string(),
            "bytes": bytes.len(),
            "result": {
                "successful_validation": result.successful_validation,
                "new_payload_request_root": hex(&result.new_payload_request_root),
                "chain_id": result.chain_id,
                "schema_id": result.schema_id,
                "bytes": hex(&result.to_bytes()),
            },
            "native": native,
            "vm": run.vm.as_ref().map(|(_, metering)| serde_json::json!({
                "guest": "standard",
                "keccak": keccak.name(),
                "crypto": crypto.name(),
                "metering": metering,
            })),
        });
        print::write_json(out, &report)?;
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
    json: Option<&Path>,
) -> anyhow::Result<ExitCode> {
    let bytes = read_input(path)?;
    let (file, report, result) = prover::proof::prove_standard(&bytes, keccak, limits, kind)?;
    let name = path.file_stem().map_or_else(
        || "stateless-input".to_owned(),
        |s| s.to_string_lossy().into_owned(),
    );
    let out = out.unwrap_or_else(|| PathBuf::from(format!("{name}.proof")));
    prover::proof::write(&out, &file)?;
    let label = path.display().to_string();
    print::print_proved(&label, &file, &out, &report);
    host::proving::write_summary(json, &label, &file, &out, &report)?;
    println!("  result (proved, the same natively):");
    print_result(&result);
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::file_stem_of;

    #[test]
    fn an_ef_case_name_becomes_a_safe_distinct_file_name() {
        assert_eq!(file_stem_of("simple_case-1"), "simple_case-1");
        let a = "tests/amsterdam/eip7928_block_level_access_lists/test_x.py::test_y[fork_Amsterdam-blockchain_test]";
        let b = a.replace("test_y", "test_z");
        let (sa, sb) = (file_stem_of(a), file_stem_of(&b));
        assert!(!sa.contains(['/', ':', '[', ']']), "{sa}");
        assert_ne!(sa, sb);
        let long = "x/".repeat(400);
        assert!(file_stem_of(&long).len() <= 129);
        assert_ne!(file_stem_of(&long), file_stem_of(&"x/".repeat(401)));
    }
}
