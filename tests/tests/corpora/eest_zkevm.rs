//! Every EEST "worst compute" fixture in `../shared/blocks/eest-zkevm/` validates under its own
//! chain config (expected verdict: valid).

use tests::shared_blocks_dir;

#[test]
fn all_eest_zkevm_fixtures_validate() {
    let dir = shared_blocks_dir().join("eest-zkevm");
    let names = chaindata::blocks::list_blocks(&dir).unwrap();
    assert_eq!(names.len(), 32, "expected the 32 fixtures of the README");
    for name in &names {
        let run =
            host::native::run_native(&dir, name, None).unwrap_or_else(|e| panic!("{name}: {e}"));
        let out = run
            .verdict
            .unwrap_or_else(|e| panic!("{name}: expected valid, got: {e}"));
        assert_eq!(out.tx_count, 1, "{name}");
        println!(
            "{name}: valid, {} gas, {:.0} ms",
            out.gas_used,
            run.elapsed.as_secs_f64() * 1e3
        );
    }
}
