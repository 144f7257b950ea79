//! The stdin a client uploads: OpenVM SDK's `StdIn` as bincode writes it, which is how
//! zkboost's OpenVM client encodes it (`encode_stdin`): a little-endian u64 count of buffers,
//! each buffer as its u64 length and its bytes, then a u64 count of deferrals, which must be 0
//! (this service proves no deferrals). Hand-written because the SDK's `StdIn` holds field
//! elements, not the buffers, and bincode is not otherwise a dependency. Every length is checked
//! against what remains before anything is allocated, and the buffers are at most
//! [`MAX_BUFFERS`] (a block guest's input is one buffer per witness node and code: tens of
//! thousands for a mainnet block), so an upload of empty buffers cannot make the server hold
//! more than a few times what it sent.

/// Why an upload is not a stdin.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StdinError {
    /// Shorter than a length field it needs.
    #[error("the stdin ends inside {what} at byte {at} (it is {len} bytes)")]
    Truncated {
        /// The field.
        what: String,
        /// Where it starts.
        at: usize,
        /// The upload's length.
        len: usize,
    },
    /// A buffer's length runs past the end.
    #[error("buffer {index} claims {claimed} bytes at byte {at}; only {left} remain")]
    Overrun {
        /// The buffer.
        index: u64,
        /// Its length field.
        claimed: u64,
        /// Where its bytes start.
        at: usize,
        /// What remains.
        left: usize,
    },
    /// No buffers.
    #[error("the stdin holds no buffers")]
    Empty,
    /// More buffers than any program reads.
    #[error("the stdin declares {0} buffers; at most {MAX_BUFFERS} are accepted")]
    TooMany(u64),
    /// Deferrals were given.
    #[error("the stdin carries {0} deferral(s); this service proves none")]
    Deferrals(u64),
    /// Bytes after the deferral count.
    #[error("{0} byte(s) after the stdin's end")]
    Trailing(usize),
}

/// The most buffers a stdin may hold.
pub const MAX_BUFFERS: u64 = 1 << 20;

/// The buffers of an encoded stdin, in order.
pub fn decode(bytes: &[u8]) -> Result<Vec<Vec<u8>>, StdinError> {
    let mut cursor = Cursor { bytes, at: 0 };
    let count = cursor.word(|| "the buffer count".into())?;
    if count == 0 {
        return Err(StdinError::Empty);
    }
    if count > MAX_BUFFERS {
        return Err(StdinError::TooMany(count));
    }
    let mut buffers = Vec::new();
    for index in 0..count {
        let claimed = cursor.word(|| format!("buffer {index}'s length"))?;
        let left = bytes.len() - cursor.at;
        let len = usize::try_from(claimed)
            .ok()
            .filter(|&len| len <= left)
            .ok_or(StdinError::Overrun {
                index,
                claimed,
                at: cursor.at,
                left,
            })?;
        buffers.push(bytes[cursor.at..cursor.at + len].to_vec());
        cursor.at += len;
    }
    let deferrals = cursor.word(|| "the deferral count".into())?;
    if deferrals != 0 {
        return Err(StdinError::Deferrals(deferrals));
    }
    if cursor.at != bytes.len() {
        return Err(StdinError::Trailing(bytes.len() - cursor.at));
    }
    Ok(buffers)
}

/// The encoding of `buffers` with no deferrals (what [`decode`] reads back).
pub fn encode(buffers: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + buffers.iter().map(|b| b.len() + 8).sum::<usize>());
    out.extend_from_slice(&(buffers.len() as u64).to_le_bytes());
    for buffer in buffers {
        out.extend_from_slice(&(buffer.len() as u64).to_le_bytes());
        out.extend_from_slice(buffer);
    }
    out.extend_from_slice(&0u64.to_le_bytes());
    out
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    /// The next little-endian u64, named by `what` when it is missing.
    fn word(&mut self, what: impl Fn() -> String) -> Result<u64, StdinError> {
        let field = self
            .bytes
            .get(self.at..self.at + 8)
            .ok_or_else(|| StdinError::Truncated {
                what: what(),
                at: self.at,
                len: self.bytes.len(),
            })?;
        self.at += 8;
        Ok(u64::from_le_bytes(field.try_into().expect("8 bytes")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_what_zkboost_encodes() {
        let input = b"statelessInputBytes".as_slice();
        // zkboost's encode_stdin, spelled out: count 1, length, bytes, no deferrals.
        let mut zkboost = 1u64.to_le_bytes().to_vec();
        zkboost.extend_from_slice(&(input.len() as u64).to_le_bytes());
        zkboost.extend_from_slice(input);
        zkboost.extend_from_slice(&0u64.to_le_bytes());
        assert_eq!(encode(&[input]), zkboost);
        assert_eq!(decode(&zkboost).unwrap(), vec![input.to_vec()]);
        let two = encode(&[b"a", b""]);
        assert_eq!(decode(&two).unwrap(), vec![b"a".to_vec(), Vec::new()]);
    }

    #[test]
    fn refuses_each_malformation_by_name() {
        let good = encode(&[b"abc"]);
        assert!(matches!(decode(&[]), Err(StdinError::Truncated { .. })));
        assert_eq!(decode(&encode(&[])), Err(StdinError::Empty));
        // Cut inside the bytes, inside the deferral count.
        assert!(matches!(
            decode(&good[..18]),
            Err(StdinError::Overrun {
                index: 0,
                claimed: 3,
                ..
            })
        ));
        assert!(matches!(
            decode(&good[..good.len() - 1]),
            Err(StdinError::Truncated { .. })
        ));
        let mut deferred = good.clone();
        let n = deferred.len();
        deferred[n - 8] = 2;
        assert_eq!(decode(&deferred), Err(StdinError::Deferrals(2)));
        let mut trailing = good.clone();
        trailing.push(0);
        assert_eq!(decode(&trailing), Err(StdinError::Trailing(1)));
        // A count of 2^64 - 1 buffers is refused before any is read.
        let mut huge = u64::MAX.to_le_bytes().to_vec();
        huge.extend_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(decode(&huge), Err(StdinError::TooMany(u64::MAX)));
        // A length of 2^64 - 1 runs past the end: nothing is allocated for it.
        let mut long = 1u64.to_le_bytes().to_vec();
        long.extend_from_slice(&u64::MAX.to_le_bytes());
        assert!(matches!(
            decode(&long),
            Err(StdinError::Overrun {
                claimed: u64::MAX,
                ..
            })
        ));
    }
}
