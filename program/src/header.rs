//! Ancestor headers and the block header against its parent.
//!
//! Written by hand: alloy-consensus decodes headers but has no consensus rules, and reth's
//! validators do not build for the guest. Post-merge rules only: a proof-of-work block is
//! refused ([`ValidationError::PreMerge`]).

use alloc::vec::Vec;
use alloy_consensus::{Header, EMPTY_OMMER_ROOT_HASH};
use alloy_eips::eip1559::BaseFeeParams;
use alloy_eips::eip4844::DATA_GAS_PER_BLOB;
use alloy_hardforks::EthereumHardforks;
use alloy_primitives::{map::HashMap, Bytes, B256, B64, U256};
use alloy_rlp::Decodable;

use crate::chain::ChainConfig;
use crate::error::{field, opt, ValidationError};

/// BLOCKHASH reaches the 256 most recent blocks.
pub const MAX_ANCESTORS: usize = 256;
/// The gas limit may move by less than 1/1024 of the parent's per block.
const GAS_LIMIT_BOUND_DIVISOR: u64 = 1024;
/// The smallest gas limit.
const MIN_GAS_LIMIT: u64 = 5000;
/// The largest gas limit (EIP-1985: 2^63 - 1).
pub const MAX_GAS_LIMIT: u64 = i64::MAX as u64;
/// Longest `extra_data`.
const MAX_EXTRA_DATA: usize = 32;
/// EIP-7934 (Osaka): the largest block RLP.
pub const MAX_RLP_BLOCK_SIZE: usize = 10_485_760 - 2_097_152;

/// Forks whose rules this verifier does not implement: a block under one of them is unusable
/// input, never valid under an older fork's rules.
const UNSUPPORTED_FORKS: [alloy_hardforks::EthereumHardfork; 1] =
    [alloy_hardforks::EthereumHardfork::Bogota];

/// Decodes the witness's ancestor headers and checks they form a chain: consecutive numbers,
/// each `parent_hash` the keccak of the previous header's RLP. Returns the headers (parent last)
/// and the block hashes they prove, by number, for BLOCKHASH.
pub fn decode_ancestors(
    headers: &[Bytes],
) -> Result<(Vec<Header>, HashMap<u64, B256>), ValidationError> {
    if headers.len() > MAX_ANCESTORS {
        return Err(ValidationError::TooManyAncestors(headers.len()));
    }
    let mut decoded: Vec<Header> = Vec::with_capacity(headers.len());
    let mut hashes = HashMap::default();
    let mut previous_hash = B256::ZERO;
    for (index, rlp) in headers.iter().enumerate() {
        let mut buf = rlp.as_ref();
        let header = Header::decode(&mut buf)
            .map_err(|source| ValidationError::AncestorRlp { index, source })?;
        if !buf.is_empty() {
            return Err(ValidationError::AncestorRlp {
                index,
                source: alloy_rlp::Error::UnexpectedLength,
            });
        }
        if let Some(previous) = decoded.last() {
            // A parent at u64::MAX has no child: no number follows it.
            if previous.number.checked_add(1) != Some(header.number) {
                return Err(ValidationError::AncestorNumber {
                    index,
                    expected: previous.number.saturating_add(1),
                    got: header.number,
                });
            }
            if header.parent_hash != previous_hash {
                return Err(ValidationError::AncestorLink {
                    index,
                    expected: previous_hash,
                    got: header.parent_hash,
                });
            }
        }
        previous_hash = mpt::keccak256(rlp);
        hashes.insert(header.number, previous_hash);
        decoded.push(header);
    }
    Ok((decoded, hashes))
}

/// Checks `header` on its own and against `parent` under `chain`'s rules.
pub fn validate_header(
    header: &Header,
    parent: &Header,
    chain: &ChainConfig,
) -> Result<(), ValidationError> {
    if !chain.is_paris_active_at_block(header.number) {
        return Err(ValidationError::PreMerge(header.number));
    }
    if let Some(fork) = UNSUPPORTED_FORKS
        .into_iter()
        .find(|&fork| chain.is_ethereum_fork_active_at_timestamp(fork, header.timestamp))
    {
        return Err(ValidationError::UnsupportedFork {
            number: header.number,
            fork,
        });
    }
    match parent.number.checked_add(1) {
        Some(number) if number == header.number => {}
        Some(number) => return Err(field("number", number, header.number)),
        None => {
            return Err(ValidationError::HeaderField {
                field: "number",
                expected: alloc::format!("none: the parent's number is {}", u64::MAX),
                got: alloc::format!("{}", header.number),
            })
        }
    }
    if header.timestamp <= parent.timestamp {
        return Err(ValidationError::HeaderField {
            field: "timestamp",
            expected: alloc::format!("> {}", parent.timestamp),
            got: alloc::format!("{}", header.timestamp),
        });
    }
    if header.gas_limit > MAX_GAS_LIMIT {
        return Err(ValidationError::HeaderField {
            field: "gas_limit",
            expected: alloc::format!("<= {MAX_GAS_LIMIT}"),
            got: alloc::format!("{}", header.gas_limit),
        });
    }
    let bound = parent.gas_limit / GAS_LIMIT_BOUND_DIVISOR;
    if header.gas_limit.abs_diff(parent.gas_limit) >= bound || header.gas_limit < MIN_GAS_LIMIT {
        return Err(ValidationError::GasLimit {
            parent: parent.gas_limit,
            got: header.gas_limit,
        });
    }
    if header.gas_used > header.gas_limit {
        return Err(ValidationError::HeaderField {
            field: "gas_used",
            expected: alloc::format!("<= gas_limit {}", header.gas_limit),
            got: alloc::format!("{}", header.gas_used),
        });
    }
    if header.extra_data.len() > MAX_EXTRA_DATA {
        return Err(field(
            "extra_data length",
            MAX_EXTRA_DATA,
            header.extra_data.len(),
        ));
    }
    // Proof-of-stake: no difficulty, nonce or ommers.
    if header.difficulty != U256::ZERO {
        return Err(field("difficulty", U256::ZERO, header.difficulty));
    }
    if header.nonce != B64::ZERO {
        return Err(field("nonce", B64::ZERO, header.nonce));
    }
    if header.ommers_hash != EMPTY_OMMER_ROOT_HASH {
        return Err(field(
            "ommers_hash",
            EMPTY_OMMER_ROOT_HASH,
            header.ommers_hash,
        ));
    }
    // EIP-1559.
    let expected_base_fee = parent.next_block_base_fee(BaseFeeParams::ethereum());
    if expected_base_fee.is_none() || header.base_fee_per_gas != expected_base_fee {
        return Err(field(
            "base_fee_per_gas",
            opt(expected_base_fee),
            opt(header.base_fee_per_gas),
        ));
    }
    let t = header.timestamp;
    fork_field(
        "withdrawals_root",
        header.withdrawals_root.is_some(),
        chain.is_shanghai_active_at_timestamp(t),
    )?;
    let cancun = chain.is_cancun_active_at_timestamp(t);
    fork_field("blob_gas_used", header.blob_gas_used.is_some(), cancun)?;
    fork_field("excess_blob_gas", header.excess_blob_gas.is_some(), cancun)?;
    fork_field(
        "parent_beacon_block_root",
        header.parent_beacon_block_root.is_some(),
        cancun,
    )?;
    fork_field(
        "requests_hash",
        header.requests_hash.is_some(),
        chain.is_prague_active_at_timestamp(t),
    )?;
    // Amsterdam's fields (EIP-7928, EIP-7843), after `requests_hash`. The slot number is the
    // consensus layer's to check: execution only reads it (SLOTNUM).
    let amsterdam = chain.is_amsterdam_active_at_timestamp(t);
    let shaped = header.block_access_list_hash.is_some() || header.slot_number.is_some();
    let fork = alloy_hardforks::EthereumHardfork::Amsterdam;
    if shaped && chain.ethereum_fork_activation(fork) == alloy_hardforks::ForkCondition::Never {
        return Err(ValidationError::UnscheduledFork {
            number: header.number,
            fork,
        });
    }
    fork_field(
        "block_access_list_hash",
        header.block_access_list_hash.is_some(),
        amsterdam,
    )?;
    fork_field("slot_number", header.slot_number.is_some(), amsterdam)?;
    if cancun {
        validate_blob_gas(header, parent, chain)?;
    }
    Ok(())
}

/// Whether `header` passes every check of [`validate_header`] that does not read the parent:
/// a block after the merge, of a supported fork, gas within bounds, the proof-of-stake
/// constants, a base fee, each fork's fields present exactly when its fork is active, and whole
/// blobs within the schedule. Each condition is one of [`validate_header`]'s, so a header that
/// fails here fails there.
///
/// Why: the standard entry executes before it reads the parent (its header comes last in the
/// input, `crate::standard::deferred`), and executes only a header that passes here, so
/// execution never sees a header the block validator would have refused before executing it
/// (a gas limit over `i64::MAX`, gas used over the limit, a Cancun block with no beacon root).
pub fn plausible_alone(header: &Header, chain: &ChainConfig) -> bool {
    let t = header.timestamp;
    let cancun = chain.is_cancun_active_at_timestamp(t);
    let amsterdam = chain.is_amsterdam_active_at_timestamp(t);
    let blobs = match chain.blob_params_at(t) {
        Some(params) => {
            let used = header.blob_gas_used.unwrap_or_default();
            used.is_multiple_of(DATA_GAS_PER_BLOB)
                && used <= params.max_blob_count * DATA_GAS_PER_BLOB
        }
        None => false,
    };
    chain.is_paris_active_at_block(header.number)
        && header.number >= 1
        && !UNSUPPORTED_FORKS
            .into_iter()
            .any(|fork| chain.is_ethereum_fork_active_at_timestamp(fork, t))
        && (MIN_GAS_LIMIT..=MAX_GAS_LIMIT).contains(&header.gas_limit)
        && header.gas_used <= header.gas_limit
        && header.extra_data.len() <= MAX_EXTRA_DATA
        && header.difficulty == U256::ZERO
        && header.nonce == B64::ZERO
        && header.ommers_hash == EMPTY_OMMER_ROOT_HASH
        && header.base_fee_per_gas.is_some()
        && header.withdrawals_root.is_some() == chain.is_shanghai_active_at_timestamp(t)
        && header.blob_gas_used.is_some() == cancun
        && header.excess_blob_gas.is_some() == cancun
        && header.parent_beacon_block_root.is_some() == cancun
        && header.requests_hash.is_some() == chain.is_prague_active_at_timestamp(t)
        && header.block_access_list_hash.is_some() == amsterdam
        && header.slot_number.is_some() == amsterdam
        && (!cancun || blobs)
}

fn fork_field(field: &'static str, present: bool, required: bool) -> Result<(), ValidationError> {
    if present == required {
        Ok(())
    } else {
        Err(ValidationError::ForkField { field, required })
    }
}

/// EIP-4844 / EIP-7918: `excess_blob_gas` follows from the parent with the block's fork's blob
/// schedule, and `blob_gas_used` is whole blobs within the maximum.
fn validate_blob_gas(
    header: &Header,
    parent: &Header,
    chain: &ChainConfig,
) -> Result<(), ValidationError> {
    let params = chain
        .blob_params_at(header.timestamp)
        .ok_or(ValidationError::ForkField {
            field: "blob schedule",
            required: true,
        })?;
    let used = header.blob_gas_used.unwrap_or_default();
    if !used.is_multiple_of(DATA_GAS_PER_BLOB) || used > params.max_blob_count * DATA_GAS_PER_BLOB {
        return Err(ValidationError::HeaderField {
            field: "blob_gas_used",
            expected: alloc::format!(
                "a multiple of {DATA_GAS_PER_BLOB} up to {}",
                params.max_blob_count * DATA_GAS_PER_BLOB
            ),
            got: alloc::format!("{used}"),
        });
    }
    // A parent before Cancun counts as zero excess and zero use.
    let expected = params.next_block_excess_blob_gas_osaka(
        parent.excess_blob_gas.unwrap_or_default(),
        parent.blob_gas_used.unwrap_or_default(),
        parent.base_fee_per_gas.unwrap_or_default(),
    );
    if header.excess_blob_gas != Some(expected) {
        return Err(field(
            "excess_blob_gas",
            opt(Some(expected)),
            opt(header.excess_blob_gas),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
