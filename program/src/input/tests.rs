use super::*;

fn input() -> StatelessInput {
    StatelessInput {
        block: Bytes::from_static(&[0xc0]),
        witness: ExecutionWitness {
            state: alloc::vec![Bytes::from_static(&[1, 2, 3, 4, 5]), Bytes::new()],
            codes: alloc::vec![Bytes::from_static(&[0x60, 0x00])],
            headers: alloc::vec![Bytes::from_static(&[0xc1, 0x80])],
        },
        chain: ChainConfig::mainnet(),
    }
}

#[test]
fn inputs_round_trip_with_every_head_frame_on_a_word() {
    let input = input();
    let items = input.to_items();
    assert_eq!(items.len(), 4);
    assert_eq!(items[0].len() % 4, 0);
    let decoded = GuestInput::from_items(&items).unwrap();
    assert_eq!(
        (&decoded.block, &decoded.headers),
        (&input.block, &input.witness.headers)
    );
    // (A TTD condition decodes with its activation block only: compare digests.)
    assert_eq!(decoded.chain.digest(), input.chain.digest());
    for view in [&decoded.block, &decoded.headers[0]] {
        assert_eq!(
            (view.as_ptr() as usize - decoded.block.as_ptr() as usize) % 4,
            0
        );
    }
    // Bytecodes, and only they, are read with their zero padding.
    let code = decoded
        .store
        .padded(&mpt::keccak256(&input.witness.codes[0]))
        .unwrap();
    assert_eq!((code.len, code.buffer.len()), (2, 2 + CODE_PADDING));
    let node = decoded
        .store
        .padded(&mpt::keccak256(&input.witness.state[0]))
        .unwrap();
    assert_eq!((node.len, node.buffer.len()), (5, 5));
    // Nodes and codes alike, each found by its hash.
    assert_eq!(decoded.store.len(), 3);
    for item in input.witness.state.iter().chain(&input.witness.codes) {
        assert_eq!(
            decoded.store.get(&mpt::keccak256(item)),
            Some(item.as_ref())
        );
    }
}

#[test]
fn malformed_inputs_are_typed_errors() {
    let items = input().to_items();
    let with_head = |head: &[u8]| {
        let mut items = items.clone();
        items[0] = head.to_vec();
        GuestInput::from_items(&items).map(drop)
    };
    let head = &items[0];
    // Every truncation of the head is refused.
    for len in 0..head.len() {
        assert!(with_head(&head[..len]).is_err(), "{len}");
    }
    // Nonzero padding (the block's frame: 1 byte, then 3 of padding).
    let mut padded = head.clone();
    padded[5] = 1;
    assert_eq!(with_head(&padded), Err(InputError::Padding("block")));
    // A count beyond the head is a truncation, not an allocation.
    let mut counted = head.clone();
    counted[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(
        with_head(&counted),
        Err(InputError::Truncated("witness headers"))
    );
    // The bytecode bits: one byte for three items, the bits past the third clear.
    let bits_at = head.len() - 4;
    assert_eq!(head[bits_at], 0b100);
    let mut stray = head.clone();
    stray[bits_at] |= 0b1000;
    assert_eq!(
        with_head(&stray),
        Err(InputError::CodeBits { items: 3, bytes: 1 })
    );
    let mut trailing = head.clone();
    trailing.extend_from_slice(&[0; 4]);
    assert_eq!(with_head(&trailing), Err(InputError::TrailingBytes(4)));
    // A chain config that is not canonical (Osaka listed as never activating, first) is
    // refused, though its old normalised digest was mainnet's.
    let mut never = ChainConfig::mainnet();
    never.forks.insert(
        0,
        (
            alloy_hardforks::EthereumHardfork::Osaka,
            alloy_hardforks::ForkCondition::Never,
        ),
    );
    let w = &input().witness;
    let nodes = w.state.iter().map(|b| (b.as_ref(), false));
    let all: Vec<_> = nodes
        .chain(w.codes.iter().map(|b| (b.as_ref(), true)))
        .collect();
    let forged = guest_items_with_chain_rlp(
        &[0xc0],
        &w.headers,
        &alloy_rlp::encode(&never),
        all.clone().into_iter(),
    );
    assert_eq!(
        GuestInput::from_items(&forged).map(drop),
        Err(InputError::Chain(
            crate::chain::ChainConfigError::NeverListed(alloy_hardforks::EthereumHardfork::Osaka)
        ))
    );
    // The same config written by the host is its canonical form, and accepted.
    let written = guest_items(&[0xc0], &w.headers, &never, all.into_iter());
    let decoded = GuestInput::from_items(&written).unwrap();
    assert_eq!(decoded.chain, never.canonical());
    // Items missing or extra.
    assert_eq!(
        GuestInput::from_items(&items[..3]).map(drop),
        Err(InputError::ItemCount {
            declared: 3,
            given: 2
        })
    );
    assert_eq!(
        GuestInput::from_items(&[]).map(drop),
        Err(InputError::Truncated("head"))
    );
}
