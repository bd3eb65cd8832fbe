//! PageRank of a graph file: `cargo run --example pagerank -- graph.txt.gz [top [cpu|cuda|auto]]`.
//! Exits 77 (a test harness's "skipped") when the backend asked for does not exist here.
use psv::{Backend, Context, Matrix};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: pagerank GRAPH [TOP [cpu|cuda|auto]]")?;
    let top: usize = args.next().map_or(Ok(5), |s| s.parse())?;
    let backend = match args.next().as_deref() {
        None | Some("cpu") => Backend::Cpu,
        Some("cuda") => Backend::Cuda,
        Some("auto") => Backend::Auto,
        Some(other) => return Err(format!("unknown backend {other} (cpu, cuda or auto)").into()),
    };
    let ctx = match Context::new(backend) {
        Err(e) if e.status == psv_sys::PSV_ERROR_BACKEND_UNAVAILABLE => {
            eprintln!("backend unavailable here: {e}");
            std::process::exit(77);
        }
        r => r?,
    };
    let a = Matrix::read(&ctx, &path)?;
    let (rank, iterations, converged) = psv::pagerank(&a, 0.85, 1e-7, 100)?;
    println!(
        "{path}: {} vertices, {} edges, {iterations} iterations, converged: {converged}",
        a.nrows()?,
        a.nvals()?
    );
    let mut order: Vec<usize> = (0..rank.len()).collect();
    order.sort_by(|&i, &j| rank[j].total_cmp(&rank[i]).then(i.cmp(&j)));
    for &v in order.iter().take(top) {
        println!("  vertex {v:>8}  rank {:.6e}", rank[v]);
    }
    let sum: f64 = rank.iter().map(|&r| r as f64).sum();
    if !converged || (sum - 1.0).abs() > 1e-3 {
        return Err(format!("bad result: converged {converged}, sum of ranks {sum}").into());
    }
    Ok(())
}
