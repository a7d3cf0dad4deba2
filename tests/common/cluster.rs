//! A PostgreSQL cluster of a test's own (`initdb` into a temporary folder, `pg_ctl start`
//! on a free port of 127.0.0.1), and hot standbys of it (`pg_basebackup -R`), so a test
//! may stop a server or replicate one without disturbing anybody else's database.
//! Included by the tests that need one (`#[path = "common/cluster.rs"] mod cluster;`).

// Each test that includes this uses part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use ms4::domain::Layer;

/// A PostgreSQL cluster of this test's own, stopped and removed when dropped.
pub struct Cluster {
    /// Holds the data folder and the socket; removed on drop.
    dir: tempfile::TempDir,
    bindir: PathBuf,
    port: u16,
    /// Run the server programs as `postgres` (we are root, which PostgreSQL refuses).
    as_postgres: bool,
}

/// Skips the test (or fails it under CI) when a part it needs is missing.
pub fn missing(what: &str) -> Option<Cluster> {
    if std::env::var_os("CI").is_some() {
        panic!(
            "CI is set but {what}: this test cannot run (scripts/setup.sh --postgres installs it)"
        );
    }
    eprintln!("SKIPPING this PostgreSQL test: {what} (scripts/setup.sh --postgres installs it)");
    None
}

/// The folder holding `initdb` and `pg_ctl`: `MS4_PG_BINDIR`, else `pg_config --bindir`,
/// else the newest `/usr/lib/postgresql/*/bin` (Debian keeps them off the PATH).
pub fn bindir() -> Option<PathBuf> {
    let has = |d: &Path| d.join("initdb").is_file() && d.join("pg_ctl").is_file();
    if let Some(d) = std::env::var_os("MS4_PG_BINDIR") {
        return Some(PathBuf::from(d)).filter(|d| has(d));
    }
    if let Ok(out) = Command::new("pg_config").arg("--bindir").output() {
        let d = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if out.status.success() && has(&d) {
            return Some(d);
        }
    }
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| {
            let e = e.ok()?;
            let v: u32 = e.file_name().to_str()?.parse().ok()?;
            Some((v, e.path().join("bin")))
        })
        .filter(|(_, d)| has(d))
        .collect();
    found.sort();
    found.pop().map(|(_, d)| d)
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub fn id_of(user: &str, flag: &str) -> u32 {
    let out = Command::new("id").args([flag, user]).output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

impl Cluster {
    /// Makes and starts a cluster, or `None` (after saying why) when a part is missing.
    pub fn new() -> Option<Cluster> {
        let Some(bindir) = bindir() else {
            return missing("PostgreSQL's server programs (initdb, pg_ctl) are not installed");
        };
        let as_postgres = unsafe { libc::geteuid() } == 0;
        if as_postgres
            && !Path::new("/usr/sbin/runuser").exists()
            && !Path::new("/sbin/runuser").exists()
        {
            return missing("runuser (util-linux) is not installed");
        }
        let c = Cluster {
            dir: Self::folder(as_postgres),
            bindir,
            port: free_port(),
            as_postgres,
        };
        let data = c.data();
        let out = c
            .pg("initdb")
            .args([
                "-A",
                "trust",
                "-U",
                "postgres",
                "--no-sync",
                "-E",
                "UTF8",
                "-D",
            ])
            .arg(&data)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "initdb: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        c.start();
        Some(c)
    }

    /// A temporary folder for a cluster, the `postgres` user's when we are root.
    fn folder(as_postgres: bool) -> tempfile::TempDir {
        let dir = tempfile::Builder::new()
            .prefix("ms4-pg-cluster-")
            .tempdir()
            .unwrap();
        if as_postgres {
            let (uid, gid) = (id_of("postgres", "-u"), id_of("postgres", "-g"));
            let c = std::ffi::CString::new(dir.path().as_os_str().as_encoded_bytes()).unwrap();
            assert_eq!(
                unsafe { libc::chown(c.as_ptr(), uid, gid) },
                0,
                "chown the cluster folder"
            );
        }
        dir
    }

    /// A hot standby of this cluster, started: a base backup taken with
    /// `pg_basebackup -R` (which writes the standby's connection to this primary and
    /// its `standby.signal`), streaming the primary's log from then on. The backup asks
    /// for a fast checkpoint: the default spread one waits minutes on an idle cluster.
    pub fn standby(&self) -> Cluster {
        let c = Cluster {
            dir: Self::folder(self.as_postgres),
            bindir: self.bindir.clone(),
            port: free_port(),
            as_postgres: self.as_postgres,
        };
        let out = c
            .pg("pg_basebackup")
            .args([
                "-h",
                "127.0.0.1",
                "-U",
                "postgres",
                "-X",
                "stream",
                "-R",
                "--no-sync",
                "-c",
                "fast",
            ])
            .args(["-p", &self.port.to_string(), "-D"])
            .arg(c.data())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "pg_basebackup: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        c.start();
        c
    }

    /// A server program, run as `postgres` when we are root.
    pub fn pg(&self, program: &str) -> Command {
        let exe = self.bindir.join(program);
        if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(exe);
            c
        } else {
            Command::new(exe)
        }
    }

    pub fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    pub fn start(&self) {
        let opts = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            self.port,
            self.dir.path().display()
        );
        let out = self
            .pg("pg_ctl")
            .args(["-w", "-t", "60", "-D"])
            .arg(self.data())
            .arg("-l")
            .arg(self.dir.path().join("server.log"))
            .args(["-o", &opts, "start"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "pg_ctl start: {}{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default()
        );
    }

    /// Stops the cluster the way an administrator would: connections are cut at once.
    pub fn stop(&self, mode: &str) -> bool {
        self.pg("pg_ctl")
            .args(["-w", "-t", "60", "-m", mode, "-D"])
            .arg(self.data())
            .arg("stop")
            .output()
            .is_ok_and(|o| o.status.success())
    }

    pub fn url(&self, db: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{db}", self.port)
    }

    /// Runs one SQL statement with psql, as another program editing the registry would.
    pub fn psql(&self, db: &str, sql: &str) -> String {
        let out = Command::new(self.bindir.join("psql"))
            .args([
                "-X",
                "-q",
                "-A",
                "-t",
                "-v",
                "ON_ERROR_STOP=1",
                "-h",
                "127.0.0.1",
                "-U",
                "postgres",
            ])
            .args(["-p", &self.port.to_string(), "-d", db, "-c", sql])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "psql {sql}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.stop("immediate");
    }
}

/// The demo town in a new registry at `url`, boundary first (the import checks every
/// other layer against it).
pub async fn load_demo(url: &str) {
    let meta = ms4::import::crs::registry_meta("north-castle-ny", 2260).unwrap();
    let store = ms4::store::create(url, &meta).await.unwrap();
    let mut layers = vec![Layer::Boundary];
    layers.extend(Layer::ALL.into_iter().filter(|l| *l != Layer::Boundary));
    for l in layers {
        let file = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data/demo")
            .join(format!("{}.gpkg", l.name()));
        if file.exists() {
            let r = ms4::import::import(store.clone(), ms4::import::ImportOptions::new(l, file))
                .await
                .unwrap();
            assert_eq!(r.rejected, 0, "{l}");
        }
    }
}
