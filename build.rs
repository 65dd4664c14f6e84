//! Generates `include/aeronrs.h` from the `ffi` layer with cbindgen. The header is committed;
//! it is rewritten only when its content changes, so CI can check for drift with
//! `git diff --exit-code include/`.

use std::path::PathBuf;

fn main() {
    let crate_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let version = std::env::var("CARGO_PKG_VERSION").expect("CARGO_PKG_VERSION");
    let mut parts = version.split('.').map(|p| p.split('-').next().unwrap_or("0").to_string());
    let (major, minor, patch) = (
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
    );

    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-changed=src/ffi");
    // Hand-written parts of the header, appended after the includes in this order.
    let hand_written = [
        "include/aeronrs_packed.h.in",
        "include/aeronrs_driver_env.h.in",
        "include/aeronrs_client_env.h.in",
        "include/aeronrs_util.h.in",
        "include/aeronrs_media.h.in",
    ];
    for part in hand_written {
        println!("cargo:rerun-if-changed={part}");
    }

    let mut config =
        cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("read cbindgen.toml");
    config.after_includes = Some(format!(
        "{}\n#define AERONRS_VERSION \"{version}\"\n#define AERONRS_VERSION_MAJOR {major}\n#define AERONRS_VERSION_MINOR {minor}\n#define AERONRS_VERSION_PATCH {patch}\n{}",
        config.after_includes.clone().unwrap_or_default(),
        hand_written
            .iter()
            .map(|part| std::fs::read_to_string(crate_dir.join(part))
                .unwrap_or_else(|e| panic!("read {part}: {e}")))
            .collect::<Vec<_>>()
            .join("\n"),
    ));

    let bindings = cbindgen::Builder::new()
        .with_config(config)
        .with_src(crate_dir.join("src/ffi/mod.rs"))
        .generate()
        .expect("cbindgen could not generate include/aeronrs.h");

    let out = crate_dir.join("include/aeronrs.h");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let current = std::fs::read(&out).unwrap_or_default();
    if current != generated {
        std::fs::write(&out, generated).expect("write include/aeronrs.h");
    }
}
