//! PageRank on a real graph (SNAP email-Eu-core or wiki-Vote). The file comes from
//! PSV_TEST_GRAPH (Meson sets it) or the repository's data folders.
use psv::{Backend, Context, Matrix};
use std::path::PathBuf;

fn graph() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("PSV_TEST_GRAPH") {
        return Some(PathBuf::from(p));
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../..");
    [
        "tests/data/email-Eu-core.txt.gz",
        "examples/data/wiki-Vote.txt.gz",
    ]
    .iter()
    .map(|p| root.join(p))
    .find(|p| p.exists())
}

#[test]
fn pagerank_on_real_graph() {
    let Some(path) = graph() else {
        // Meson always sets PSV_TEST_GRAPH; a bare `cargo test` without the data says so.
        eprintln!("no graph file found (set PSV_TEST_GRAPH); skipping");
        return;
    };
    let ctx = Context::new(Backend::Cpu).unwrap();
    let a = Matrix::read(&ctx, &path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let n = a.nrows().unwrap();
    assert_eq!(n, a.ncols().unwrap());
    assert!(
        n > 100 && a.nvals().unwrap() > n,
        "{} is not a real graph",
        path.display()
    );
    let (rank, iterations, converged) = psv::pagerank(&a, 0.85, 1e-7, 200).unwrap();
    assert!(converged, "not converged in {iterations} iterations");
    assert_eq!(rank.len() as i64, n);
    let sum: f64 = rank.iter().map(|&r| r as f64).sum();
    assert!((sum - 1.0).abs() < 1e-3, "ranks sum to {sum}");
    assert!(
        rank.iter().all(|&r| r > 0.0),
        "every vertex has rank >= (1-d)/n"
    );
    // Ranks are deterministic on one backend.
    let (again, _, _) = psv::pagerank(&a, 0.85, 1e-7, 200).unwrap();
    assert_eq!(rank, again);
}
