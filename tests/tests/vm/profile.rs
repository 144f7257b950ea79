//! The instruments: `host profile` attributes every instruction, `host profile --pages`
//! partitions the run's page touches.

use host::report::{run_in_vm, Mode};
use prover::guest::{Crypto, GuestSpec, Keccak};

/// `host profile`: every instruction of the devnet block is attributed to a function (the total
/// is the metered count), the call stacks add up to it, `memcpy`'s callers add up to its own
/// instructions, and the flame graph is well-formed SVG.
#[test]
fn the_profile_attributes_every_instruction() {
    let blocks = tests::project_blocks_dir();
    let native = host::native::run_native(&blocks, chaindata::blocks::DEFAULT_BLOCK, None).unwrap();
    let spec = GuestSpec::block(Keccak::Ours, Crypto::Openvm);
    let metered = run_in_vm(&native, Mode::Metered, spec).unwrap_or_else(|e| panic!("{e}"));
    let instructions = metered.instructions.unwrap();
    let profile = host::measure::profile::profile(
        &native.data.id,
        &native.guest_input(),
        spec,
        instructions,
        1,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(profile.instructions, instructions);
    assert_eq!(
        profile
            .functions
            .iter()
            .map(|f| f.instructions)
            .sum::<u64>(),
        instructions
    );
    assert_eq!(
        profile.stacks.iter().map(|s| s.1).sum::<u64>(),
        instructions
    );
    // The guest's own code is named: the trie and the sponge are among the functions.
    let named = |part: &str| profile.functions.iter().any(|f| f.name.contains(part));
    assert!(
        named("mpt::trie") && named("Sponge"),
        "{:?}",
        &profile.functions[..5]
    );
    // Who calls `memcpy`: its own instructions, split by caller, add up to its row.
    let own = |name: &str| {
        (profile.functions.iter())
            .find(|f| f.name == name)
            .map_or(0, |f| f.instructions)
    };
    let callers = profile.callers("memcpy");
    assert!(own("memcpy") > 0 && callers.len() > 1, "{callers:?}");
    assert_eq!(callers.iter().map(|c| c.1).sum::<u64>(), own("memcpy"));
    assert!(callers.windows(2).all(|w| w[0].1 >= w[1].1), "{callers:?}");
    let unnamed: u64 = profile
        .functions
        .iter()
        .filter(|f| f.name == "(no symbol)")
        .map(|f| f.instructions)
        .sum();
    assert!(
        unnamed * 100 < instructions,
        "{unnamed} instructions outside every symbol"
    );
    // Sampled: the same total, fewer distinct stacks at most.
    let sampled = host::measure::profile::profile(
        &native.data.id,
        &native.guest_input(),
        spec,
        instructions,
        1000,
    )
    .unwrap();
    assert_eq!(sampled.instructions, instructions);
    assert!(sampled.stacks.len() <= profile.stacks.len());
    let svg = host::print::flamegraph_svg(&profile);
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches("<g>").count(), svg.matches("</g>").count());
    assert!(svg.matches("<rect").count() > 50);
}

/// `host profile --pages`: the census replays exactly the metered instructions, its segments
/// partition them, every page first touched is counted fresh once, and its page count is close
/// to what OpenVM's metering charges (boundary rows / 128: one init and one final row per
/// 8-byte leaf of each 512-byte page). The census approximates custom instructions (a long
/// hint counts at its start), so close means within a quarter, not equal.
#[test]
fn the_page_census_partitions_the_run_and_matches_the_metering() {
    let blocks = tests::project_blocks_dir();
    let native = host::native::run_native(&blocks, chaindata::blocks::DEFAULT_BLOCK, None).unwrap();
    let spec = GuestSpec::block(Keccak::Ours, Crypto::Openvm);
    let metered = run_in_vm(&native, Mode::Metered, spec).unwrap();
    let instructions = metered.instructions.unwrap();
    let boundary_rows = metered
        .airs
        .as_ref()
        .unwrap()
        .iter()
        .find(|a| a.name.starts_with("PersistentBoundaryAir"))
        .map(|a| a.rows)
        .unwrap();
    let metered_pages = boundary_rows / 128;

    let whole = host::measure::pages::census(&native.guest_input(), spec, &[instructions]).unwrap();
    assert_eq!(whole.segments.len(), 1);
    let one = &whole.segments[0];
    assert_eq!(one.instructions, instructions);
    assert_eq!(one.pages, one.stack + one.data + one.heap);
    assert_eq!(one.fresh, one.pages);
    assert_eq!(whole.distinct, one.pages);
    let (lo, hi) = (metered_pages * 3 / 4, metered_pages * 5 / 4);
    assert!(
        (lo..=hi).contains(&one.pages),
        "census {} pages, metering {metered_pages}",
        one.pages
    );
    assert_eq!(whole.functions.iter().map(|f| f.1).sum::<u64>(), one.pages);

    // Two halves: each counts its own pages; the fresh ones add up to the distinct ones.
    let half = instructions / 2;
    let split =
        host::measure::pages::census(&native.guest_input(), spec, &[half, instructions - half])
            .unwrap();
    assert_eq!(split.segments.len(), 2);
    assert_eq!(
        split.segments.iter().map(|s| s.instructions).sum::<u64>(),
        instructions
    );
    assert_eq!(
        split.segments.iter().map(|s| s.fresh).sum::<u64>(),
        split.distinct
    );
    assert_eq!(split.distinct, whole.distinct);
    assert!(split.segments.iter().map(|s| s.pages).sum::<u64>() >= split.distinct);
}
