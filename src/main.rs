//! The `ms4` command: the registry's command-line verbs and its HTTP server (see the
//! library's `cli` module).

// Imports allocate features on the reader thread and free them on the writer's; glibc's
// allocator spends a quarter of a million-feature load on that, mimalloc very little.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::IsTerminal;

use clap::Parser;
use tracing_subscriber::EnvFilter;

/// How long blocking threads still running when the program is done may keep it alive.
const RUNTIME_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

fn main() -> std::process::ExitCode {
    // Built by hand rather than by `#[tokio::main]` for the way it ends: a runtime
    // dropped the usual way waits for every blocking thread to return, and one thread in
    // a long GDAL or GEOS call would keep a stopped server running for as long as it
    // takes. Reads stop at the server's shutdown (see `http::server`); this is the wall.
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let code = runtime.block_on(run());
    runtime.shutdown_timeout(RUNTIME_GRACE);
    code
}

async fn run() -> std::process::ExitCode {
    quiet_on_closed_pipe();
    let cli = ms4::cli::Cli::parse();
    let serving = cli.serves();
    // The server logs what it does; a one-shot command prints its answer and, on failure,
    // the error once (below): the store's own error events would say it a second time.
    let default = if serving {
        "ms4=info,tower_http=info"
    } else {
        "ms4=warn"
    };
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    use tracing_subscriber::Layer;
    let asked = std::env::var_os("RUST_LOG").is_some();
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    // The error events `#[instrument(err)]` emits carry the same error main prints:
    // a one-shot command drops them unless RUST_LOG asks for logging.
    let once = tracing_subscriber::filter::filter_fn(move |meta| {
        serving
            || asked
            || !(*meta.level() == tracing::Level::ERROR && meta.fields().field("error").is_some())
    });
    tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                // Colour codes only for a person at a terminal, never into a file or pipe.
                .with_ansi(std::io::stderr().is_terminal())
                .with_writer(std::io::stderr)
                .with_filter(filter)
                .with_filter(once),
        )
        .init();
    match ms4::cli::run(cli).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) if ms4::cli::output::is_broken_pipe(&e) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", ms4::cli::output::error_text(&e));
            std::process::ExitCode::FAILURE
        }
    }
}

/// Output into a pipe whose reader has gone (`ms4 illicit | head -1`) ends the program
/// quietly, as `cat` or `grep` would: `println!` panics on a closed stdout, and that
/// panic (with its backtrace hint) is not news to the user. Other panics are reported as
/// usual, with a backtrace only when `RUST_BACKTRACE` asks.
fn quiet_on_closed_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.contains("failed printing to stdout") && msg.contains("Broken pipe") {
            std::process::exit(0);
        }
        default(info);
    }));
}
