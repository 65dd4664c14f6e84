//! One C export written from its parts, for the export families build.rs generates from
//! tables (`build/*_exports.rs`). Each family's module returns the Rust source of its
//! exports; an `src/ffi` file includes it with `include!` and cbindgen reads it as a source.

/// The parts of one `#[unsafe(no_mangle)]` export. Its body runs inside `ffi_boundary!`,
/// so a failure (or a panic) sets the thread's error and returns the type's failure value.
pub struct Export<'a> {
    /// What the function does, returns and how it fails: prose, wrapped into `///` lines.
    pub doc: &'a str,
    pub name: &'a str,
    /// The parameter list as Rust source, e.g. `image: *mut aeron_image_t, position: i64`.
    pub params: &'a str,
    pub returns: &'a str,
    /// The `# Safety` contract: prose.
    pub safety: &'a str,
    /// An expression of type `Result<returns>`. It is the operand of one `unsafe` block
    /// whose justification is the contract (`forwarded`), so it may call the `unsafe`
    /// helpers that take the same contract.
    pub body: &'a str,
}

impl Export<'_> {
    /// The export's Rust source.
    pub fn source(&self) -> String {
        let Export { doc, name, params, returns, safety, body } = self;
        let (doc, safety) = (format!("{}\n", doc_comment(doc)), format!("{}\n", doc_comment(safety)));
        skeleton(&doc, name, params, &format!(" -> {returns}"), &safety, &format!("            {body}"))
    }
}

/// The source of one export around `body`, whatever wrote its parts: `doc` and `safety` as
/// `///` lines (each ending in a newline), `returns` as it follows the parameters (` -> T`,
/// or empty), `body` as indented lines forming an expression of type `Result<T>`.
pub fn skeleton(doc: &str, name: &str, params: &str, returns: &str, safety: &str, body: &str) -> String {
    format!(
        "\n{doc}///\n/// # Safety\n{safety}#[unsafe(no_mangle)]\n\
         pub unsafe extern \"C\" fn {name}({params}){returns} {{\n    \
         ffi_boundary!(\"{name}\", {{\n        \
         // SAFETY: the arguments satisfy this function's contract, which the body's\n        \
         // helpers take as theirs.\n        \
         unsafe {{\n{body}\n        }}\n    }})\n}}\n"
    )
}

/// `text` as `///` lines of at most about 100 characters.
pub fn doc_comment(text: &str) -> String {
    let mut lines = vec![String::from("///")];
    for word in text.split_whitespace() {
        if lines.last().is_some_and(|l| l.len() + word.len() > 96) {
            lines.push(String::from("///"));
        }
        let line = lines.last_mut().expect("a line");
        line.push(' ');
        line.push_str(word);
    }
    lines.join("\n")
}

/// `source`, a family whose first line names its table module (`.. (build/<module>.rs) ..`),
/// with a comment before each export naming that module and the export's row, so that a
/// compiler message about a line of the generated file leads to the row that wrote it.
/// Sources without such a first line are returned as they are.
pub fn name_rows(source: &str) -> String {
    let module = source.lines().next().and_then(|first| {
        let (_, rest) = first.split_once("(build/")?;
        Some(format!("build/{}", rest.split_once(')')?.0))
    });
    let Some(module) = module else { return source.to_string() };
    let lines: Vec<&str> = source.lines().collect();
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        // The first doc line of an export: its row's name is on its `fn` line below.
        if line.starts_with("///") && i > 0 && !lines[i - 1].starts_with("///") {
            let name = lines[i..]
                .iter()
                .find_map(|l| l.strip_prefix("pub unsafe extern \"C\" fn "))
                .and_then(|l| l.split_once('('))
                .map_or("?", |(name, _)| name);
            out.push_str(&format!("// {module}: the row of `{name}`.\n"));
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}
