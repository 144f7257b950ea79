//! A private PostgreSQL server per test: `initdb` in a temporary directory, listening on a unix
//! socket there (and, when asked, on a loopback TCP port with password authentication),
//! stopped and removed when dropped. Never one already running.
//!
//! PostgreSQL refuses to run as root, and CI runs as root: then the server runs as the
//! unprivileged `postgres` user (`runuser`), which owns the directory.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A running server.
pub struct Pg {
    dir: PathBuf,
    bin: PathBuf,
    /// The unix socket's port number.
    pub port: u16,
    /// A TCP port on 127.0.0.1 with password authentication, when started with one.
    pub tcp: Option<u16>,
    as_user: Option<String>,
}

/// The user that owns the cluster's tables.
pub const USER: &str = "prover";
/// Its password over TCP.
pub const PASSWORD: &str = "s3cret-pw";

/// The directory holding `initdb`, `pg_ctl` and `postgres`.
fn bin_dir() -> PathBuf {
    if let Ok(path) = std::env::var("PATH") {
        for dir in std::env::split_paths(&path) {
            let initdb = dir.join("initdb");
            if initdb.exists() {
                return std::fs::canonicalize(&initdb)
                    .map(|p| p.parent().unwrap().to_owned())
                    .unwrap_or(dir);
            }
        }
    }
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|d| d.flatten().map(|e| e.path().join("bin")).collect())
        .unwrap_or_default();
    found.sort();
    found
        .pop()
        .filter(|d| d.join("initdb").exists())
        .expect("PostgreSQL's server (initdb, pg_ctl) is not installed: .ci/run installs it")
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn is_root() -> bool {
    let out = Command::new("id").arg("-u").output().expect("id -u");
    String::from_utf8_lossy(&out.stdout).trim() == "0"
}

impl Pg {
    /// A fresh server on a unix socket.
    pub fn start() -> Self {
        Self::start_with(false)
    }

    /// A fresh server, also on a loopback TCP port with password authentication (`tcp`).
    pub fn start_with(tcp: bool) -> Self {
        let bin = bin_dir();
        let dir = std::env::temp_dir().join(format!("pg-{}-{}", std::process::id(), free_port()));
        std::fs::create_dir_all(&dir).unwrap();
        let as_user = is_root().then(|| "postgres".to_owned());
        if let Some(user) = &as_user {
            let status = Command::new("chown")
                .args([&format!("{user}:"), dir.to_str().unwrap()])
                .status()
                .unwrap();
            assert!(status.success(), "chown the server's directory to {user}");
        }
        let pwfile = dir.join("pw");
        std::fs::write(&pwfile, PASSWORD).unwrap();
        if let Some(user) = &as_user {
            Command::new("chown")
                .args([&format!("{user}:"), pwfile.to_str().unwrap()])
                .status()
                .unwrap();
        }
        let pg = Pg {
            dir,
            bin,
            port: free_port(),
            tcp: tcp.then(free_port),
            as_user,
        };
        let data = pg.data();
        pg.run(
            "initdb",
            &[
                "-D",
                data.to_str().unwrap(),
                "-U",
                USER,
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
                &format!("--pwfile={}", pwfile.display()),
                "-E",
                "UTF8",
                "--no-sync",
            ],
        );
        pg.ctl(&["start", "-w", "-t", "60"]);
        pg
    }

    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    /// Runs the server binary `name` as the server's user.
    fn run(&self, name: &str, args: &[&str]) {
        let program = self.bin.join(name);
        let mut command = match &self.as_user {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(&program);
                c
            }
            None => Command::new(&program),
        };
        let output = command
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            output.status.success(),
            "{name} {args:?} failed:\n{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }

    fn ctl(&self, args: &[&str]) {
        let listen = match self.tcp {
            Some(port) => format!("-c listen_addresses=127.0.0.1 -c port={port}"),
            None => "-c listen_addresses=''".to_owned(),
        };
        // With TCP the socket shares the TCP port's number.
        let socket_port = self.tcp.unwrap_or(self.port);
        let options = format!(
            "-k {} -p {socket_port} {listen} -c fsync=off -c max_connections=100",
            self.dir.display()
        );
        let data = self.data();
        let log = self.dir.join("server.log");
        let mut all = vec![
            "-D",
            data.to_str().unwrap(),
            "-l",
            log.to_str().unwrap(),
            "-o",
            &options,
        ];
        all.extend_from_slice(args);
        self.run("pg_ctl", &all);
    }

    /// The URL over the unix socket (trusted local user).
    pub fn url(&self) -> String {
        format!(
            "host={} port={} user={USER} dbname=postgres",
            self.dir.display(),
            self.tcp.unwrap_or(self.port)
        )
    }

    /// The URL over TCP with the password, as a machine elsewhere would use it.
    pub fn tcp_url(&self, password: &str) -> String {
        let port = self.tcp.expect("started with TCP");
        format!("postgres://{USER}:{password}@127.0.0.1:{port}/postgres")
    }

    /// Restarts the server (fast shutdown: every connection is dropped).
    pub fn restart(&self) {
        self.ctl(&["restart", "-m", "fast", "-w", "-t", "60"]);
    }

    /// The server's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Pg {
    fn drop(&mut self) {
        let data = self.data();
        let program = self.bin.join("pg_ctl");
        let mut command = match &self.as_user {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(&program);
                c
            }
            None => Command::new(&program),
        };
        let _ = command
            .args([
                "-D",
                data.to_str().unwrap(),
                "stop",
                "-m",
                "immediate",
                "-w",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
