//! `vmap-replay`: replay a trace and print exactly what the kernel's code prints.
//!
//! ```text
//! vmap-replay [--check] [--bench] [--profile NAME] FILE|-
//! ```

use std::io::{Read, Write};
use std::process::ExitCode;
use std::time::Instant;

use vmapviz_core::check::check_invariants;
use vmapviz_core::trace::{parse_trace, Op, TraceLine};
use vmapviz_core::{NoObserver, Profile, Replayer};

const USAGE: &str = "usage: vmap-replay [--check] [--bench] [--profile NAME] FILE|-
  FILE|-          the trace to replay (- for standard input)
  --check         verify every invariant after each operation
  --bench         time the replay loop only; prints ops=N ns_per_op=X on stderr
  --profile NAME  linux-5.2 (default), linux-6.1 or linux-6.9 (a `profile` line in the trace wins)";

struct Args {
    check: bool,
    bench: bool,
    profile: Profile,
    file: String,
}

fn parse_args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let mut a = Args { check: false, bench: false, profile: Profile::default(), file: String::new() };
    let mut file = None;
    while let Some(s) = it.next() {
        match s.as_str() {
            "--check" => a.check = true,
            "--bench" => a.bench = true,
            "--profile" => {
                let n = it.next().ok_or("--profile needs a name")?;
                a.profile = Profile::parse(&n).ok_or_else(|| format!("unknown profile `{n}`"))?;
            }
            "-h" | "--help" => return Err(String::new()),
            _ if s.starts_with("--") => return Err(format!("unknown option {s}")),
            _ => {
                if file.replace(s).is_some() {
                    return Err("only one trace file".into());
                }
            }
        }
    }
    a.file = file.ok_or("no trace file given")?;
    Ok(a)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("vmap-replay: {e}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut text = String::new();
    let read = if args.file == "-" {
        std::io::stdin().read_to_string(&mut text).map(|_| ())
    } else {
        std::fs::read(&args.file).and_then(|b| {
            text = String::from_utf8(b).map_err(|_| std::io::Error::other("not UTF-8 text"))?;
            Ok(())
        })
    };
    if let Err(e) = read {
        eprintln!("vmap-replay: {}: {e}", args.file);
        return ExitCode::from(2);
    }
    let lines = match parse_trace(&text) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("vmap-replay: {e}");
            return ExitCode::from(1);
        }
    };
    let mut r = Replayer::new(args.profile);
    let mut out = String::new();
    let code = if args.bench { bench(&mut r, &lines, &mut out) } else { replay(&mut r, &lines, &mut out, args.check) };
    let _ = std::io::stdout().write_all(out.as_bytes());
    code
}

fn replay(r: &mut Replayer, lines: &[TraceLine], out: &mut String, check: bool) -> ExitCode {
    for l in lines {
        if let Err(e) = r.apply(&l.op, out, &mut NoObserver) {
            eprintln!("vmap-replay: line {}: {e}", l.line);
            return ExitCode::from(1);
        }
        if check {
            if let Err(e) = check_invariants(&r.vmap) {
                eprintln!("vmap-replay: line {}: invariant violated after `{}`: {e}", l.line, l.op);
                return ExitCode::from(3);
            }
        }
    }
    ExitCode::SUCCESS
}

fn bench(r: &mut Replayer, lines: &[TraceLine], out: &mut String) -> ExitCode {
    let ops = lines.iter().filter(|l| l.op.is_timed()).count();
    let t = Instant::now();
    for l in lines {
        // Prints are part of the output but not of the timed work: skip them.
        if matches!(l.op, Op::Dump | Op::Busy | Op::Pools) {
            continue;
        }
        if let Err(e) = r.apply(&l.op, out, &mut NoObserver) {
            eprintln!("vmap-replay: line {}: {e}", l.line);
            return ExitCode::from(1);
        }
    }
    let ns = t.elapsed().as_nanos() as f64;
    out.clear();
    eprintln!("ops={ops} ns_per_op={:.1}", if ops > 0 { ns / ops as f64 } else { 0.0 });
    ExitCode::SUCCESS
}
