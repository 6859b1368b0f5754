fn main() {
    let t = std::time::Instant::now();
    let mut n = 0;
    for e in walkdir::WalkDir::new("../shared/corpus") {
        let e = e.unwrap();
        if e.path().extension().map_or(true, |x| x != "yaml") {
            continue;
        }
        let bytes = std::fs::read(e.path()).unwrap();
        let f = capkg::yaml::parse_file(e.path().display().to_string(), bytes, Default::default());
        n += f.documents.len();
        for err in &f.errors {
            let p = f.source.position(err.span.start);
            println!("{}:{}: {}", f.source.name(), p, err.message);
        }
    }
    println!("{n} docs in {:?}", t.elapsed());
}
