// Imports allocate features on the reader thread and free them on the writer's; glibc's
// allocator spends a quarter of a million-feature load on that, mimalloc very little.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::Parser;
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| EnvFilter::new("ms4=info,tower_http=info")),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = ms4::cli::Cli::parse();
    match ms4::cli::run(cli).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
