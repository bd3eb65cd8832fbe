//! psv-sys against the linked libpsv: the header the declarations came from and the library
//! agree, and the generated declarations still match include/psv/psv.h.
use psv_sys::*;
use std::ffi::CStr;
use std::path::Path;
use std::process::Command;
use std::ptr;

#[test]
fn header_drift() {
    // Same check as Meson's `bindings-drift` test: regenerate in memory and diff.
    let gen = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../gen_bindings.py");
    let out = Command::new("python3")
        .arg(&gen)
        .arg("--check")
        .output()
        .expect("python3 must be on PATH to run the drift check");
    assert!(
        out.status.success(),
        "psv-sys is stale:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn version_matches_header() {
    assert_eq!(unsafe { psv_version_number() }, PSV_VERSION_NUMBER);
}

#[test]
fn raw_context_and_error_path() {
    unsafe {
        let mut ctx: *mut psv_context = ptr::null_mut();
        assert_eq!(
            psv_context_create(PSV_BACKEND_CPU, 0, &mut ctx),
            PSV_SUCCESS
        );
        assert!(!ctx.is_null());
        let mut a: *mut psv_matrix = ptr::null_mut();
        let path = c"/nonexistent/psv-sys-test.mtx";
        assert_eq!(psv_matrix_read(ctx, path.as_ptr(), &mut a), PSV_ERROR_IO);
        assert!(a.is_null(), "outputs stay untouched on failure");
        let msg = CStr::from_ptr(psv_context_last_error(ctx))
            .to_string_lossy()
            .into_owned();
        assert!(!msg.is_empty());
        let name = CStr::from_ptr(psv_status_string(PSV_ERROR_IO))
            .to_string_lossy()
            .into_owned();
        assert!(name.contains("PSV_ERROR_IO"), "{name}");
        psv_context_free(&mut ctx);
        assert!(ctx.is_null());
    }
}

#[test]
fn struct_layout_through_info_get() {
    unsafe {
        let mut ctx: *mut psv_context = ptr::null_mut();
        assert_eq!(
            psv_context_create(PSV_BACKEND_CPU, 0, &mut ctx),
            PSV_SUCCESS
        );
        let rows = [0i64, 1, 2, 2];
        let cols = [1i64, 2, 0, 1];
        let mut a: *mut psv_matrix = ptr::null_mut();
        assert_eq!(
            psv_matrix_build(
                ctx,
                PSV_FP64,
                3,
                4,
                4,
                rows.as_ptr(),
                cols.as_ptr(),
                ptr::null(),
                PSV_NOOP,
                &mut a
            ),
            PSV_SUCCESS
        );
        let mut info = psv_matrix_info::default();
        assert_eq!(psv_matrix_info_get(a, &mut info), PSV_SUCCESS);
        assert_eq!((info.nrows, info.ncols, info.nvals), (3, 4, 4));
        assert_eq!(info.backend, PSV_BACKEND_CPU);
        let tiles = info.dense_tiles + info.sparse_tile;
        assert!(tiles >= 1);
        let mut t = psv_tile_info::default();
        assert_eq!(psv_matrix_tile_info(a, 0, &mut t), PSV_SUCCESS);
        assert!(t.nvals >= 1 && t.nvals <= 4 && (t.index_bits == 16 || t.index_bits == 32));
        assert_eq!(
            psv_matrix_tile_info(a, tiles, &mut t),
            PSV_ERROR_INVALID_INDEX
        );
        psv_matrix_free(&mut a);
        psv_context_free(&mut ctx);
    }
}
