// Link libpsv. PSV_LIB_DIR names the folder holding libpsv.so (the Meson build dir); without
// it the system linker paths are searched (an installed libpsv).
fn main() {
    println!("cargo:rerun-if-env-changed=PSV_LIB_DIR");
    if let Ok(dir) = std::env::var("PSV_LIB_DIR") {
        if !dir.is_empty() {
            println!("cargo:rustc-link-search=native={}", dir);
            // Let `cargo run` / `cargo test` find the library without LD_LIBRARY_PATH.
            println!("cargo:lib_dir={}", dir);
        }
    }
    println!("cargo:rustc-link-lib=dylib=psv");
}
