//! `host verify`: a proof file checked against the pinned commitments (or the guest rebuilt
//! from source), then what it proves against what the caller expects: for the block guest,
//! the chain; for the standard guest (EIP-8025), the chain and the request
//! ([`prover::proof::binding`]).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use host::print;
use prover::guest::{Keccak, Program};
use prover::proof::binding::{judge, schema_name, Binding, Expected};
use prover::proof::ProofFile;
use stateless_ssz::{Fork, StatelessValidationResult};

use super::standard::{print_result, read_input};

#[derive(Args)]
pub struct VerifyArgs {
    /// The proof file: `host prove`'s, or a bare aggregated proof (OpenVM's codec, as
    /// `host serve` hands it out), checked against the pinned guest its public values fit.
    pub file: PathBuf,
    /// The chain the proof must have been made under: a known chain's name (mainnet,
    /// sepolia, hoodi, devnet) or a genesis-style chain config (JSON). Default: mainnet.
    #[arg(long)]
    pub chain: Option<String>,
    /// Rebuild the guest and regenerate the aggregation keys from source and check against
    /// them, instead of the commitments pinned in the repository (minutes, not seconds).
    #[arg(long)]
    pub rebuild: bool,
    /// Also accept a proof of another guest than the block verifier with this project's
    /// keccak (a probe, a stock-keccak build), checked against its rebuilt program.
    #[arg(long)]
    pub other_program: bool,
    /// A standard proof: the request it must be about, as a stateless input
    /// (`statelessInputBytes`) or a `NewPayloadRequest`'s SSZ. The proof must commit to its
    /// root, under the fork the chain's schedule gives at its payload's timestamp.
    #[arg(long, conflicts_with_all = ["schema", "request_root"])]
    pub request: Option<PathBuf>,
    /// A standard proof: the fork whose rules it must have applied (Paris ... Amsterdam, or a
    /// schema id such as 0x1201), with `--request-root`.
    #[arg(long, requires = "request_root")]
    pub schema: Option<String>,
    /// A standard proof: the `hash_tree_root` of the request it must be about (hex), with
    /// `--schema`.
    #[arg(long, requires = "schema")]
    pub request_root: Option<String>,
    /// Write the verification's every field as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

impl VerifyArgs {
    pub fn exec(self) -> anyhow::Result<ExitCode> {
        verify(&self)
    }
}

/// `host verify`'s exit statuses: 0 a valid proof of a block under the expected chain, 1 a
/// proof that does not verify, 2 a sound proof under another chain's config, 3 a proof of
/// another program (without `--other-program`); for standard proofs also 4, 5 and 6
/// ([`prover::proof::binding::Binding::exit_code`]).
fn verify(args: &VerifyArgs) -> anyhow::Result<ExitCode> {
    use prover::proof::BlockProofError;
    let (path, chain, rebuild, other_program) = (
        args.file.as_path(),
        args.chain.as_deref(),
        args.rebuild,
        args.other_program,
    );
    let file = prover::proof::bare::read_any(path)?;
    if file.subject.bin == Program::Standard.bin() && file.subject.keccak == Keccak::Ours {
        return verify_standard(args, &file);
    }
    anyhow::ensure!(
        args.request.is_none() && args.schema.is_none(),
        "--request, --schema and --request-root name what a standard proof is about; {} is a proof of `{}`",
        path.display(),
        file.subject.bin
    );
    let block_guest =
        file.subject.bin == Program::Guest.bin() && file.subject.keccak == Keccak::Ours;
    if !block_guest {
        let what = if file.subject.bin == Program::Guest.bin() {
            format!(
                "the block verifier built with the {} keccak (a comparison baseline)",
                file.subject.keccak.name()
            )
        } else {
            format!("guest `{}`, not the block verifier", file.subject.bin)
        };
        if !other_program {
            println!(
                "proof {} is of {what}: not a block proof (--other-program checks it)",
                path.display()
            );
            return Ok(ExitCode::from(3));
        }
        // Its public values are its own.
        let verdict = prover::proof::verify(&file).map_err(|e| e.to_string());
        return Ok(print::print_verified(path, &file, &verdict, |public| {
            println!("  program          {what}");
            println!(
                "  public values    {}",
                alloy_primitives::hex::encode(public)
            );
        }));
    }
    let (chain, chain_name) = super::expected_chain(chain)?;
    let started = std::time::Instant::now();
    let verdict = prover::proof::verify_block(&file, &chain, &chain_name, rebuild);
    let anchor = if rebuild {
        "rebuilt from source"
    } else {
        "pinned commitments"
    };
    eprintln!(
        "checked against the {anchor} in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    if let Err(e @ BlockProofError::ChainDigest { .. }) = &verdict {
        println!("proof {} OTHER CHAIN: {e}", path.display());
        return Ok(ExitCode::from(2));
    }
    let verdict = verdict.map_err(|e| e.to_string());
    Ok(print::print_verified(path, &file, &verdict, |values| {
        print::print_public_values(values, Some(&chain_name));
    }))
}

/// `host verify` of a standard-guest proof: the proof, then what it is about against what the
/// caller named ([`prover::proof::binding`]). Exit statuses: 0 a sound proof that the named
/// request is valid under the fork the chain's schedule gives, on the expected chain; 1 a
/// proof that does not verify; 2 a sound proof about another chain; 4 a sound proof that the
/// named request is invalid (`INVALID (proved)`, also for input that does not decode); 5 a
/// sound proof checked against no request (`--request`, or `--schema` and `--request-root`):
/// what it says is printed, never as VALID; 6 a sound proof about another request, or under
/// another fork's rules.
fn verify_standard(args: &VerifyArgs, file: &ProofFile) -> anyhow::Result<ExitCode> {
    let path = &args.file;
    let (chain, chain_name) = super::expected_chain(args.chain.as_deref())?;
    let expected = expected(args, &chain)?;
    let verdict = prover::proof::verify_standard(file, args.rebuild).map_err(|e| e.to_string());
    let code = print::print_verified(path, file, &verdict, print_result);
    let mut json = serde_json::json!({
        "proof": path,
        "program": file.subject.bin,
        "anchor": if args.rebuild { "rebuilt" } else { "pinned" },
        "proof_verified": verdict.is_ok(),
        "chain": chain_name,
        "chain_id": chain.chain_id,
        "expected": expected.as_ref().map(|e| serde_json::json!({
            "schema_id": e.fork.schema_id(),
            "schema": e.fork.name(),
            "request_root": format!("0x{}", alloy_primitives::hex::encode(e.request_root)),
        })),
    });
    let result = match verdict {
        Ok(result) => result,
        Err(e) => {
            json["verdict"] = "not_verified".into();
            json["error"] = e.into();
            json["exit"] = 1.into();
            write_json(args.json.as_deref(), &json)?;
            return Ok(code);
        }
    };
    let binding = judge(&result, chain.chain_id, expected.as_ref());
    let root = |r: &[u8; 32]| format!("0x{}", alloy_primitives::hex::encode(r));
    let proved = format!(
        "request {} under {} ({:#06x}) on chain id {}",
        root(&result.new_payload_request_root),
        schema_name(result.schema_id),
        result.schema_id,
        result.chain_id
    );
    let reason = match &binding {
        Binding::Valid => format!("block VALID (proved) on {chain_name}: {proved}"),
        Binding::Invalid => {
            let why = if result == StatelessValidationResult::UNDECODABLE {
                "the input does not decode"
            } else {
                "the block does not validate"
            };
            format!("block INVALID (proved): {why}: {proved}")
        }
        Binding::OtherChain { proved: id, .. } => format!(
            "OTHER CHAIN: the proof is about chain id {id}, not the expected {chain_name} ({})",
            chain.chain_id
        ),
        Binding::OtherRequest { what } => format!("NOT THE REQUEST ASKED: {what}"),
        Binding::Unchecked => format!(
            "UNCHECKED: the proof says successful_validation = {} for {proved}; name the request \
             (--request FILE, or --schema and --request-root) to have it checked",
            result.successful_validation
        ),
    };
    println!("  {reason}");
    json["result"] = serde_json::json!({
        "successful_validation": result.successful_validation,
        "new_payload_request_root": root(&result.new_payload_request_root),
        "chain_id": result.chain_id,
        "schema_id": result.schema_id,
        "schema": schema_name(result.schema_id),
    });
    json["verdict"] = binding.name().into();
    json["reason"] = reason.into();
    json["exit"] = binding.exit_code().into();
    write_json(args.json.as_deref(), &json)?;
    Ok(ExitCode::from(binding.exit_code()))
}

/// What the caller named: a request file, or a fork and a root.
fn expected(args: &VerifyArgs, chain: &program::ChainConfig) -> anyhow::Result<Option<Expected>> {
    if let Some(path) = &args.request {
        let bytes = read_input(path)?;
        let expected = Expected::of_request(&bytes, chain)
            .map_err(|e| anyhow::anyhow!("--request {}: {e}", path.display()))?;
        return Ok(Some(expected));
    }
    let (Some(schema), Some(root)) = (&args.schema, &args.request_root) else {
        return Ok(None);
    };
    let fork = parse_schema(schema)?;
    let request_root: [u8; 32] = alloy_primitives::hex::decode(root)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| anyhow::anyhow!("--request-root `{root}` is not 32 bytes of hex"))?;
    Ok(Some(Expected { fork, request_root }))
}

/// A fork by name (any case) or by schema id (`0x1201`).
pub fn parse_schema(text: &str) -> anyhow::Result<Fork> {
    let by_id = text
        .strip_prefix("0x")
        .and_then(|hex| u16::from_str_radix(hex, 16).ok())
        .and_then(Fork::from_schema_id);
    by_id
        .or_else(|| Fork::ALL.into_iter().find(|f| f.name().eq_ignore_ascii_case(text)))
        .ok_or_else(|| {
            anyhow::anyhow!("--schema `{text}` is no fork with a stateless schema (Paris ... Amsterdam, or 0x0e01 ... 0x1501)")
        })
}

fn write_json(path: Option<&Path>, json: &serde_json::Value) -> anyhow::Result<()> {
    if let Some(path) = path {
        let text = serde_json::to_string_pretty(json)? + "\n";
        std::fs::write(path, text)
            .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
    }
    Ok(())
}
