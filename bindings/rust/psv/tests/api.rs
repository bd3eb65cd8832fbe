//! The safe API against the linked libpsv (CPU backend): values, ownership, error paths.
use psv::{
    mxv, Backend, Context, Descriptor, FormatOption, Matrix, Op, ReadOptions, Semiring, Type,
    Vector,
};
use psv_sys as sys;

fn cpu() -> Context {
    Context::new(Backend::Cpu).expect("CPU context")
}

// A = [0 1 0 0; 0 0 2 0; 3 4 0 0] (3 x 4)
fn small(ctx: &Context) -> Matrix<'_> {
    Matrix::build(
        ctx,
        3,
        4,
        &[0, 1, 2, 2],
        &[1, 2, 0, 1],
        &[1.0f64, 2.0, 3.0, 4.0],
        None,
    )
    .unwrap()
}

#[test]
fn version_and_backend() {
    assert_eq!(psv::version_number(), psv::HEADER_VERSION_NUMBER);
    assert!(Backend::Cpu.available());
    assert_eq!(cpu().backend().unwrap(), Backend::Cpu);
}

#[test]
fn build_and_inspect() {
    let ctx = cpu();
    let a = small(&ctx);
    assert_eq!(
        (a.nrows().unwrap(), a.ncols().unwrap(), a.nvals().unwrap()),
        (3, 4, 4)
    );
    assert_eq!(a.value_type().unwrap(), Type::Fp64);
    assert!(!a.is_pattern().unwrap());
    let (r, c, v) = a.extract_tuples::<f64>().unwrap();
    assert_eq!(r, vec![0, 1, 2, 2]);
    assert_eq!(c, vec![1, 2, 0, 1]);
    assert_eq!(v, vec![1.0, 2.0, 3.0, 4.0]);
    let info = a.info().unwrap();
    assert_eq!((info.nrows, info.ncols, info.nvals), (3, 4, 4));
    // the CPU has no performance model: nothing predicted, the plan it runs, no runner-up
    assert_eq!(
        (
            info.predicted_ms,
            info.plan_candidates,
            info.runner_up_kernel
        ),
        (0.0, 0, -1)
    );
    assert!(
        a.plan(false).starts_with("tile-composite kernel"),
        "{}",
        a.plan(false)
    );
    assert_eq!(a.plan(true), "");
    let e = a.extract_tuples::<f32>().unwrap_err();
    assert_eq!(e.status, sys::PSV_ERROR_DOMAIN_MISMATCH);
}

#[test]
fn mxv_plus_times() {
    let ctx = cpu();
    let a = small(&ctx);
    let s = Semiring::<f64>::new(&ctx, Op::Plus, Op::Times).unwrap();
    let u = Vector::from_slice(&ctx, &[1.0, 10.0, 100.0, 1000.0]).unwrap();
    let mut w = Vector::<f64>::new(&ctx, 3).unwrap();
    mxv(&mut w, None, None, &s, &a, &u, Descriptor::NONE).unwrap();
    assert_eq!(w.get().unwrap(), vec![10.0, 200.0, 43.0]);
    // Accumulate, then transpose: A' * [1,1,1] = [3, 5, 2, 0] with entry 3 absent.
    mxv(&mut w, None, Some(Op::Plus), &s, &a, &u, Descriptor::NONE).unwrap();
    assert_eq!(w.get().unwrap(), vec![20.0, 400.0, 86.0]);
    let ones = Vector::from_slice(&ctx, &[1.0f64; 3]).unwrap();
    let mut t = Vector::<f64>::new(&ctx, 4).unwrap();
    mxv(&mut t, None, None, &s, &a, &ones, Descriptor::TRANSPOSE_A).unwrap();
    assert_eq!(t.get_element(0).unwrap(), Some(3.0));
    assert_eq!(t.get_element(1).unwrap(), Some(5.0));
    assert_eq!(t.get_element(3).unwrap(), None);
    assert_eq!(t.nvals().unwrap(), 3);
    assert_eq!(t.reduce(Op::Plus).unwrap(), 10.0);
}

#[test]
fn vector_ops() {
    let ctx = cpu();
    let mut v = Vector::<i32>::new(&ctx, 4).unwrap();
    assert_eq!(v.nvals().unwrap(), 0);
    v.set_element(2, 7).unwrap();
    let (idx, val) = v.extract_tuples().unwrap();
    assert_eq!((idx, val), (vec![2], vec![7]));
    v.fill(3).unwrap();
    let u = Vector::from_slice(&ctx, &[1, 2, 3, 4]).unwrap();
    let mut w = Vector::<i32>::new(&ctx, 4).unwrap();
    w.ewise(Op::Times, &u, &v).unwrap();
    assert_eq!(w.get().unwrap(), vec![3, 6, 9, 12]);
    w.apply(Op::Plus, &u, 10).unwrap();
    assert_eq!(w.get().unwrap(), vec![11, 12, 13, 14]);
    w.clear().unwrap();
    assert_eq!(w.nvals().unwrap(), 0);
}

#[test]
fn bad_path_is_io_error_with_message() {
    let ctx = cpu();
    let e = Matrix::read(&ctx, "/nonexistent/dir/graph.mtx")
        .err()
        .expect("must fail");
    assert_eq!(e.status, sys::PSV_ERROR_IO);
    assert!(!e.message.is_empty());
    let shown = e.to_string();
    assert!(shown.contains("PSV_ERROR_IO"), "{shown}");
    let _: &dyn std::error::Error = &e;
}

#[test]
fn write_psv_round_trip() {
    let ctx = cpu();
    let a =
        Matrix::build::<f64>(&ctx, 3, 3, &[0, 1, 2], &[1, 2, 0], &[2.5, -1.0, 3.0], None).unwrap();
    let dir = std::env::temp_dir().join(format!("psv-rust-write-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("a.psv");
    a.write(&p).unwrap();
    let b = Matrix::read(&ctx, &p).unwrap();
    assert_eq!(
        a.extract_tuples::<f64>().unwrap(),
        b.extract_tuples::<f64>().unwrap()
    );
    let e = a.write(dir.join("no/x.psv")).err().expect("must fail");
    assert_eq!(e.status, sys::PSV_ERROR_IO);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn dimension_mismatch() {
    let ctx = cpu();
    let a = small(&ctx);
    let s = Semiring::<f64>::new(&ctx, Op::Plus, Op::Times).unwrap();
    let u = Vector::from_slice(&ctx, &[1.0f64; 3]).unwrap(); // needs 4
    let mut w = Vector::<f64>::new(&ctx, 3).unwrap();
    let e = mxv(&mut w, None, None, &s, &a, &u, Descriptor::NONE).unwrap_err();
    assert_eq!(e.status, sys::PSV_ERROR_DIMENSION_MISMATCH);
    assert!(!e.message.is_empty());
    // A slice of the wrong length for set: the C library says so, nothing is read past it.
    let mut v = Vector::<f64>::new(&ctx, 4).unwrap();
    assert_eq!(
        v.set(&[1.0, 2.0]).unwrap_err().status,
        sys::PSV_ERROR_DIMENSION_MISMATCH
    );
    // PageRank needs a square matrix.
    assert_eq!(
        psv::pagerank(&a, 0.85, 1e-6, 10).unwrap_err().status,
        sys::PSV_ERROR_DIMENSION_MISMATCH
    );
    // Values slice shorter than the tuples: caught before the call.
    let e = Matrix::build(&ctx, 2, 2, &[0, 1], &[0, 1], &[1.0f32], None)
        .err()
        .unwrap();
    assert_eq!(e.status, sys::PSV_ERROR_DIMENSION_MISMATCH);
}

#[test]
fn other_errors() {
    let ctx = cpu();
    let e = Semiring::<f64>::new(&ctx, Op::Minus, Op::Times)
        .err()
        .unwrap();
    assert_eq!(e.status, sys::PSV_ERROR_DOMAIN_MISMATCH);
    let e = Matrix::build(&ctx, 2, 2, &[0, 5], &[0, 1], &[1i64, 2], None)
        .err()
        .unwrap();
    assert_eq!(e.status, sys::PSV_ERROR_INVALID_INDEX);
    let e = Matrix::build(&ctx, 2, 2, &[0, 0], &[1, 1], &[1i32, 2], None)
        .err()
        .unwrap();
    assert_eq!(e.status, sys::PSV_ERROR_DUPLICATE_ENTRY);
    let a = Matrix::build(&ctx, 2, 2, &[0, 0], &[1, 1], &[1i32, 2], Some(Op::Plus)).unwrap();
    assert_eq!(a.extract_tuples::<i32>().unwrap().2, vec![3]);
}

#[test]
fn pagerank_cycle() {
    // A directed 4-cycle: every rank is 1/4.
    let ctx = cpu();
    let a = Matrix::build_pattern(&ctx, Type::Fp32, 4, 4, &[0, 1, 2, 3], &[1, 2, 3, 0]).unwrap();
    assert!(a.is_pattern().unwrap());
    let (rank, iterations, converged) = a.pagerank(0.85, 1e-9, 100).unwrap();
    assert!(converged && iterations >= 1);
    for r in rank {
        assert!((r - 0.25).abs() < 1e-6, "{r}");
    }
    // A star is not at its fixed point after one iteration from r0 = 1/n: PSV_NOT_CONVERGED
    // is delivered as Ok with converged == false.
    let star = Matrix::build_pattern(&ctx, Type::Fp32, 4, 4, &[1, 2, 3], &[0, 0, 0]).unwrap();
    let (rank, iterations, converged) = star.pagerank(0.85, 0.0, 1).unwrap();
    assert_eq!((iterations, converged), (1, false));
    assert_eq!(rank.len(), 4);
}

#[test]
fn objects_may_move_between_threads() {
    let ctx = cpu();
    let a = small(&ctx);
    std::thread::scope(|sc| {
        sc.spawn(|| assert_eq!(a.nvals().unwrap(), 4));
    });
}

#[test]
fn vector_build() {
    let ctx = cpu();
    let mut v = Vector::<f64>::new(&ctx, 5).unwrap();
    v.build(&[4, 1], &[2.5, -1.0]).unwrap();
    assert_eq!(v.extract_tuples().unwrap(), (vec![1, 4], vec![-1.0, 2.5]));
    assert_eq!(
        v.build(&[1, 1], &[1.0, 2.0]).unwrap_err().status,
        sys::PSV_ERROR_DUPLICATE_ENTRY
    );
    assert_eq!(
        v.build(&[9], &[1.0]).unwrap_err().status,
        sys::PSV_ERROR_INVALID_INDEX
    );
    assert_eq!(v.nvals().unwrap(), 2, "unchanged on failure");
}

#[test]
fn other_algorithms() {
    let ctx = cpu();
    // A directed 4-cycle plus a chord 0 -> 2.
    let a =
        Matrix::build_pattern(&ctx, Type::Fp32, 4, 4, &[0, 1, 2, 3, 0], &[1, 2, 3, 0, 2]).unwrap();
    let sum = |v: &[f32]| v.iter().map(|&x| x as f64).sum::<f64>();
    let (h, au, _, converged) = psv::hits(&a, 1e-6, 500).unwrap();
    assert!(converged);
    assert!((sum(&h) - 1.0).abs() < 1e-4 && (sum(&au) - 1.0).abs() < 1e-4);
    // Vertex 2 has the most in-edges: the top authority.
    assert!(au.iter().all(|&x| x <= au[2]));
    let teleport = Vector::from_slice(&ctx, &[1.0f32, 0.0, 0.0, 0.0]).unwrap();
    let (p, _, converged) = psv::pagerank_personalized(&a, &teleport, 0.85, 1e-7, 200).unwrap();
    assert!(converged && (sum(&p) - 1.0).abs() < 1e-4);
    let (r, _, converged) = psv::rwr(&a, 0, 0.9, 1e-6, 500).unwrap();
    assert!(converged && r.len() == 4);
    assert!(
        r.iter().all(|&x| x <= r[0]),
        "the query is the most relevant to itself"
    );
    let (rb, _, converged) = psv::rwr_batch(&a, &[0, 3], 0.9, 1e-6, 500).unwrap();
    assert!(converged && rb.len() == 8);
    for i in 0..4 {
        assert!((rb[i * 2] - r[i]).abs() < 1e-5, "column 0 is rwr(0)");
    }
    assert_eq!(
        psv::rwr(&a, 7, 0.9, 1e-9, 10).unwrap_err().status,
        sys::PSV_ERROR_INVALID_INDEX
    );
}

#[test]
fn read_options_relabel_and_undirected() {
    let ctx = cpu();
    let dir = std::env::temp_dir().join(format!("psv-rust-ropt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("h.txt");
    std::fs::write(&p, "9223372036854775807 7\n7 3000000000\n").unwrap();
    assert!(Matrix::read(&ctx, &p).is_err()); // ids above 2^31-2 need relabel
    let relabel = ReadOptions {
        relabel: true,
        ..Default::default()
    };
    let a = Matrix::read_with(&ctx, &p, relabel).unwrap();
    assert_eq!(a.nrows().unwrap(), 3);
    assert_eq!(a.labels().unwrap(), Some(vec![i64::MAX, 7, 3000000000]));
    let both = ReadOptions {
        relabel: true,
        undirected: true,
    };
    let u = Matrix::read_with(&ctx, &p, both).unwrap();
    assert_eq!(u.nvals().unwrap(), 4);
    let plain = small(&ctx);
    assert_eq!(plain.labels().unwrap(), None);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tuning_on_the_cpu() {
    let mut ctx = cpu();
    assert_eq!(ctx.tuning().unwrap().source, sys::PSV_TUNING_NONE);
    assert!(
        ctx.tuning_text().contains("no performance model"),
        "{}",
        ctx.tuning_text()
    );
    let e = ctx.tune(None, true, false).unwrap_err();
    assert_eq!(e.status, sys::PSV_ERROR_NOT_IMPLEMENTED);
    ctx.set_option(FormatOption::PlanChoice, sys::PSV_CHOICE_RULES as i64)
        .unwrap();
    ctx.set_option(FormatOption::HotColumns, 0).unwrap();
    let e = ctx.set_option(FormatOption::RankOrder, 2).unwrap_err();
    assert_eq!(e.status, sys::PSV_ERROR_INVALID_VALUE);
    let a = small(&ctx); // still usable
    assert_eq!(a.nvals().unwrap(), 4);
}
