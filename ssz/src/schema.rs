//! The schema id: which fork's payload shape (and rules) the input is, and the revision of the
//! format (`schema_id = fork_index << 8 | revision`, big-endian before the SSZ).

/// The format revision this crate reads and writes (the low byte of every schema id).
pub const SCHEMA_REVISION: u8 = 0x01;

/// The execution-layer forks a stateless input can be of, by their stable indices
/// (execution-specs `ProtocolFork`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Fork {
    /// The merge: `ExecutionPayloadV1`.
    Paris = 0x0E,
    /// Withdrawals: `ExecutionPayloadV2`.
    Shanghai = 0x0F,
    /// Blobs and the beacon root: `ExecutionPayloadV3`, versioned hashes.
    Cancun = 0x10,
    /// Execution requests.
    Prague = 0x11,
    /// Osaka (Prague's shape).
    Osaka = 0x12,
    /// The first blob-parameter-only fork (Prague's shape).
    Bpo1 = 0x13,
    /// The second (Prague's shape).
    Bpo2 = 0x14,
    /// Amsterdam: the payload carries the block access list and the slot number, the requests
    /// the builders' (EIP-8282).
    Amsterdam = 0x15,
}

/// The payload shapes: what a [`Fork`]'s `NewPayloadRequest` holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `{ execution_payload: ExecutionPayloadV1 }`.
    Paris,
    /// `{ execution_payload: ExecutionPayloadV2 }`.
    Shanghai,
    /// `{ execution_payload: ExecutionPayloadV3, versioned_hashes, parent_beacon_block_root }`.
    Cancun,
    /// Cancun's, plus `execution_requests`.
    Prague,
    /// Prague's with `ExecutionPayloadV4` (`block_access_list`, `slot_number`) and the
    /// requests' builder deposits and exits.
    Amsterdam,
}

impl Fork {
    /// Every fork, oldest first.
    pub const ALL: [Fork; 8] = [
        Fork::Paris,
        Fork::Shanghai,
        Fork::Cancun,
        Fork::Prague,
        Fork::Osaka,
        Fork::Bpo1,
        Fork::Bpo2,
        Fork::Amsterdam,
    ];

    /// Its stable index.
    pub fn index(self) -> u8 {
        self as u8
    }

    /// Its schema id at [`SCHEMA_REVISION`].
    pub fn schema_id(self) -> u16 {
        (u16::from(self.index()) << 8) | u16::from(SCHEMA_REVISION)
    }

    /// The fork whose schema id is `id`, if this crate reads it.
    pub fn from_schema_id(id: u16) -> Option<Fork> {
        Fork::ALL.into_iter().find(|f| f.schema_id() == id)
    }

    /// Its payload's shape.
    pub fn shape(self) -> Shape {
        match self {
            Fork::Paris => Shape::Paris,
            Fork::Shanghai => Shape::Shanghai,
            Fork::Cancun => Shape::Cancun,
            Fork::Prague | Fork::Osaka | Fork::Bpo1 | Fork::Bpo2 => Shape::Prague,
            Fork::Amsterdam => Shape::Amsterdam,
        }
    }

    /// Its name as the execution specs spell it.
    pub fn name(self) -> &'static str {
        match self {
            Fork::Paris => "Paris",
            Fork::Shanghai => "Shanghai",
            Fork::Cancun => "Cancun",
            Fork::Prague => "Prague",
            Fork::Osaka => "Osaka",
            Fork::Bpo1 => "BPO1",
            Fork::Bpo2 => "BPO2",
            Fork::Amsterdam => "Amsterdam",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_ids_are_the_fork_index_then_the_revision() {
        assert_eq!(Fork::Prague.schema_id(), 0x1101);
        assert_eq!(Fork::Osaka.schema_id(), 0x1201);
        assert_eq!(Fork::Paris.schema_id(), 0x0E01);
        assert_eq!(Fork::Amsterdam.schema_id(), 0x1501);
        for fork in Fork::ALL {
            assert_eq!(Fork::from_schema_id(fork.schema_id()), Some(fork));
        }
        // Bogota, another revision, nothing.
        for id in [0x1601, 0x1502, 0x1202, 0x1200, 0x0001, 0x0000, 0xFFFF] {
            assert_eq!(Fork::from_schema_id(id), None, "{id:#06x}");
        }
    }
}
