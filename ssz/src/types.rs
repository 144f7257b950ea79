//! The containers, field for field as the execution specs declare them (their SSZ annotations
//! in brackets). Byte strings of a fixed length are byte arrays; `uint256` is its 32
//! little-endian bytes (the same serialization and root as `Bytes32`).

use alloc::vec::Vec;
use libssz_derive::{HashTreeRoot, SszDecode, SszEncode};
use libssz_types::{ProgressiveList, SszList};

pub use crate::bytes::ProgressiveByteList;

/// `Bytes32` / `Root` / `Hash32`.
pub type Bytes32 = [u8; 32];
/// `ExecutionAddress`.
pub type Address = [u8; 20];
/// `ByteList[N]`.
pub type ByteList<const N: usize> = SszList<u8, N>;

/// `MAX_EXTRA_DATA_BYTES`.
pub const MAX_EXTRA_DATA_BYTES: usize = 32;
/// `MAX_BYTES_PER_WITNESS_NODE`.
pub const MAX_BYTES_PER_WITNESS_NODE: usize = 1 << 10;
/// `MAX_BYTES_PER_CODE`.
pub const MAX_BYTES_PER_CODE: usize = 1 << 16;
/// `MAX_BYTES_PER_HEADER`.
pub const MAX_BYTES_PER_HEADER: usize = 1 << 10;
/// `MAX_WITNESS_HEADERS`.
pub const MAX_WITNESS_HEADERS: usize = 256;
/// `PUBLIC_KEY_BYTES`: an uncompressed SEC1 secp256k1 key, `0x04 ‖ x ‖ y`.
pub const PUBLIC_KEY_BYTES: usize = 65;
/// The result's length.
pub const RESULT_BYTES: usize = 43;

/// `Withdrawal` (EIP-4895).
#[derive(Debug, Clone, PartialEq, Eq, SszEncode, SszDecode, HashTreeRoot)]
pub struct Withdrawal {
    /// `WithdrawalIndex` (uint64).
    pub index: u64,
    /// `ValidatorIndex` (uint64).
    pub validator_index: u64,
    /// `ExecutionAddress`.
    pub address: Address,
    /// `Gwei` (uint64).
    pub amount: u64,
}

/// `DepositRequest` (EIP-6110).
#[derive(Debug, Clone, PartialEq, Eq, SszEncode, SszDecode, HashTreeRoot)]
pub struct DepositRequest {
    /// `BLSPubkey` (Bytes48).
    pub pubkey: [u8; 48],
    /// `Bytes32`.
    pub withdrawal_credentials: Bytes32,
    /// `Gwei` (uint64).
    pub amount: u64,
    /// `BLSSignature` (Bytes96).
    pub signature: [u8; 96],
    /// uint64.
    pub index: u64,
}

/// `WithdrawalRequest` (EIP-7002).
#[derive(Debug, Clone, PartialEq, Eq, SszEncode, SszDecode, HashTreeRoot)]
pub struct WithdrawalRequest {
    /// `ExecutionAddress`.
    pub source_address: Address,
    /// `BLSPubkey`.
    pub validator_pubkey: [u8; 48],
    /// `Gwei` (uint64).
    pub amount: u64,
}

/// `ConsolidationRequest` (EIP-7251).
#[derive(Debug, Clone, PartialEq, Eq, SszEncode, SszDecode, HashTreeRoot)]
pub struct ConsolidationRequest {
    /// `ExecutionAddress`.
    pub source_address: Address,
    /// `BLSPubkey`.
    pub source_pubkey: [u8; 48],
    /// `BLSPubkey`.
    pub target_pubkey: [u8; 48],
}

/// `BuilderDepositRequest` (EIP-8282).
#[derive(Debug, Clone, PartialEq, Eq, SszEncode, SszDecode, HashTreeRoot)]
pub struct BuilderDepositRequest {
    /// `BLSPubkey` (Bytes48).
    pub pubkey: [u8; 48],
    /// `Bytes32`.
    pub withdrawal_credentials: Bytes32,
    /// `Gwei` (uint64).
    pub amount: u64,
    /// `BLSSignature` (Bytes96).
    pub signature: [u8; 96],
}

/// `BuilderExitRequest` (EIP-8282).
#[derive(Debug, Clone, PartialEq, Eq, SszEncode, SszDecode, HashTreeRoot)]
pub struct BuilderExitRequest {
    /// `ExecutionAddress`.
    pub source_address: Address,
    /// `BLSPubkey`.
    pub pubkey: [u8; 48],
}

/// `ExecutionRequests` of Amsterdam (a progressive container): Prague's three kinds, then the
/// builders' (EIP-8282).
#[derive(Debug, Clone, Default, PartialEq, Eq, SszEncode, SszDecode, HashTreeRoot)]
#[ssz(progressive_container)]
pub struct ExecutionRequestsV2 {
    /// `ProgressiveList[DepositRequest]`.
    pub deposits: ProgressiveList<DepositRequest>,
    /// `ProgressiveList[WithdrawalRequest]`.
    pub withdrawals: ProgressiveList<WithdrawalRequest>,
    /// `ProgressiveList[ConsolidationRequest]`.
    pub consolidations: ProgressiveList<ConsolidationRequest>,
    /// `ProgressiveList[BuilderDepositRequest]`.
    pub builder_deposits: ProgressiveList<BuilderDepositRequest>,
    /// `ProgressiveList[BuilderExitRequest]`.
    pub builder_exits: ProgressiveList<BuilderExitRequest>,
}

/// `ExecutionRequests` (a progressive container, EIP-7495): the consensus layer's request
/// containers, each kind a progressive list.
#[derive(Debug, Clone, Default, PartialEq, Eq, SszEncode, SszDecode, HashTreeRoot)]
#[ssz(progressive_container)]
pub struct ExecutionRequests {
    /// `ProgressiveList[DepositRequest]`.
    pub deposits: ProgressiveList<DepositRequest>,
    /// `ProgressiveList[WithdrawalRequest]`.
    pub withdrawals: ProgressiveList<WithdrawalRequest>,
    /// `ProgressiveList[ConsolidationRequest]`.
    pub consolidations: ProgressiveList<ConsolidationRequest>,
}

/// Declares an execution payload (a progressive container): the fields every shape has, then
/// the shape's own.
macro_rules! payload {
    ($(#[$doc:meta])* $name:ident { $($(#[$fdoc:meta])* $field:ident: $ty:ty,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, SszEncode, SszDecode, HashTreeRoot)]
        #[ssz(progressive_container)]
        pub struct $name {
            /// `Hash32`.
            pub parent_hash: Bytes32,
            /// `ExecutionAddress`.
            pub fee_recipient: Address,
            /// `Root`.
            pub state_root: Bytes32,
            /// `Root`.
            pub receipts_root: Bytes32,
            /// `Bloom` (ByteVector[256]).
            pub logs_bloom: [u8; 256],
            /// `Bytes32`.
            pub prev_randao: Bytes32,
            /// uint64.
            pub block_number: u64,
            /// uint64.
            pub gas_limit: u64,
            /// uint64.
            pub gas_used: u64,
            /// uint64.
            pub timestamp: u64,
            /// `ByteList[MAX_EXTRA_DATA_BYTES]`.
            pub extra_data: ByteList<MAX_EXTRA_DATA_BYTES>,
            /// uint256, little-endian.
            pub base_fee_per_gas: Bytes32,
            /// `Hash32`.
            pub block_hash: Bytes32,
            /// `ProgressiveList[ProgressiveByteList]`: EIP-2718 encodings.
            pub transactions: ProgressiveList<ProgressiveByteList>,
            $($(#[$fdoc])* pub $field: $ty,)*
        }
    };
}

payload!(
    /// `ExecutionPayloadV1` (Paris).
    ExecutionPayloadV1 {}
);
payload!(
    /// `ExecutionPayloadV2` (Shanghai): withdrawals.
    ExecutionPayloadV2 {
        /// `ProgressiveList[Withdrawal]`.
        withdrawals: ProgressiveList<Withdrawal>,
    }
);
payload!(
    /// `ExecutionPayloadV3` (Cancun on): blob gas.
    ExecutionPayloadV3 {
        /// `ProgressiveList[Withdrawal]`.
        withdrawals: ProgressiveList<Withdrawal>,
        /// uint64.
        blob_gas_used: u64,
        /// uint64.
        excess_blob_gas: u64,
    }
);

payload!(
    /// `ExecutionPayloadV4` (Amsterdam): the block access list (EIP-7928, its RLP) and the slot
    /// number (EIP-7843).
    ExecutionPayloadV4 {
        /// `ProgressiveList[Withdrawal]`.
        withdrawals: ProgressiveList<Withdrawal>,
        /// uint64.
        blob_gas_used: u64,
        /// uint64.
        excess_blob_gas: u64,
        /// `BlockAccessList` (`ProgressiveByteList`): the list's RLP.
        block_access_list: ProgressiveByteList,
        /// uint64.
        slot_number: u64,
    }
);

/// `NewPayloadRequest` of Paris.
#[derive(Debug, Clone, PartialEq, Eq, SszEncode, SszDecode, HashTreeRoot)]
pub struct NewPayloadRequestV1 {
    /// The payload.
    pub execution_payload: ExecutionPayloadV1,
}

/// `NewPayloadRequest` of Shanghai.
#[derive(Debug, Clone, PartialEq, Eq, SszEncode, SszDecode, HashTreeRoot)]
pub struct NewPayloadRequestV2 {
    /// The payload.
    pub execution_payload: ExecutionPayloadV2,
}

/// `NewPayloadRequest` of Cancun.
#[derive(Debug, Clone, PartialEq, Eq, SszEncode, SszDecode, HashTreeRoot)]
pub struct NewPayloadRequestV3 {
    /// The payload.
    pub execution_payload: ExecutionPayloadV3,
    /// `ProgressiveList[VersionedHash]`: the blob transactions' hashes, in order.
    pub versioned_hashes: ProgressiveList<Bytes32>,
    /// `Root`.
    pub parent_beacon_block_root: Bytes32,
}

/// `NewPayloadRequest` of Prague, Osaka and the BPO forks.
#[derive(Debug, Clone, PartialEq, Eq, SszEncode, SszDecode, HashTreeRoot)]
pub struct NewPayloadRequestV4 {
    /// The payload.
    pub execution_payload: ExecutionPayloadV3,
    /// `ProgressiveList[VersionedHash]`.
    pub versioned_hashes: ProgressiveList<Bytes32>,
    /// `Root`.
    pub parent_beacon_block_root: Bytes32,
    /// The requests the payload's block must produce.
    pub execution_requests: ExecutionRequests,
}

/// `NewPayloadRequest` of Amsterdam.
#[derive(Debug, Clone, PartialEq, Eq, SszEncode, SszDecode, HashTreeRoot)]
pub struct NewPayloadRequestV5 {
    /// The payload.
    pub execution_payload: ExecutionPayloadV4,
    /// `ProgressiveList[VersionedHash]`.
    pub versioned_hashes: ProgressiveList<Bytes32>,
    /// `Root`.
    pub parent_beacon_block_root: Bytes32,
    /// The requests the payload's block must produce, the builders' among them.
    pub execution_requests: ExecutionRequestsV2,
}

/// `ExecutionWitness`: what re-execution reads.
#[derive(Debug, Clone, Default, PartialEq, Eq, SszEncode, SszDecode, HashTreeRoot)]
pub struct ExecutionWitness {
    /// `ProgressiveList[ByteList[MAX_BYTES_PER_WITNESS_NODE]]`: trie nodes.
    pub state: ProgressiveList<ByteList<MAX_BYTES_PER_WITNESS_NODE>>,
    /// `ProgressiveList[ByteList[MAX_BYTES_PER_CODE]]`: bytecodes.
    pub codes: ProgressiveList<ByteList<MAX_BYTES_PER_CODE>>,
    /// `List[ByteList[MAX_BYTES_PER_HEADER], MAX_WITNESS_HEADERS]`: RLP headers,
    /// contiguous, the parent last.
    pub headers: SszList<ByteList<MAX_BYTES_PER_HEADER>, MAX_WITNESS_HEADERS>,
}

/// `StatelessInput` with the fork's request type `R`.
#[derive(Debug, Clone, PartialEq, Eq, SszEncode, SszDecode, HashTreeRoot)]
pub struct StatelessInputOf<R: libssz::SszEncode + libssz::SszDecode + libssz_merkle::HashTreeRoot>
{
    /// The consensus layer's request.
    pub new_payload_request: R,
    /// The witness.
    pub witness: ExecutionWitness,
    /// uint64.
    pub chain_id: u64,
    /// `ProgressiveList[ByteVector[65]]`: the transactions' signers' public keys, in payload
    /// order.
    pub public_keys: ProgressiveList<[u8; PUBLIC_KEY_BYTES]>,
}

/// `StatelessValidationResult`: what the guest reveals (43 bytes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, SszEncode, SszDecode, HashTreeRoot)]
pub struct StatelessValidationResult {
    /// `hash_tree_root(new_payload_request)`; zero when the input does not decode.
    pub new_payload_request_root: Bytes32,
    /// Whether the block is valid (false too when the input does not decode).
    pub successful_validation: bool,
    /// The input's chain id; zero when it does not decode.
    pub chain_id: u64,
    /// The input's schema id; zero when it does not decode.
    pub schema_id: u16,
}

impl StatelessValidationResult {
    /// The result for input that does not decode: 43 zero bytes.
    pub const UNDECODABLE: Self = Self {
        new_payload_request_root: [0; 32],
        successful_validation: false,
        chain_id: 0,
        schema_id: 0,
    };

    /// Its 43 bytes.
    pub fn to_bytes(&self) -> [u8; RESULT_BYTES] {
        let mut out = [0u8; RESULT_BYTES];
        out[..32].copy_from_slice(&self.new_payload_request_root);
        out[32] = u8::from(self.successful_validation);
        out[33..41].copy_from_slice(&self.chain_id.to_le_bytes());
        out[41..].copy_from_slice(&self.schema_id.to_le_bytes());
        out
    }

    /// Decodes 43 bytes (a boolean byte other than 0 or 1 is refused).
    pub fn from_bytes(bytes: &[u8]) -> Option<Self> {
        use libssz::SszDecode;
        Self::from_ssz_bytes(bytes).ok()
    }
}
