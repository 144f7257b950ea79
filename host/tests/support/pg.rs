//! A private PostgreSQL server per test: `initdb` in a temporary directory, listening on a unix
//! socket there (and, when asked, on a loopback TCP port with password authentication),
//! stopped and removed when dropped. Never one already running.
//!
//! PostgreSQL refuses to run as root, and CI runs as root: then the server runs as the
//! unprivileged `postgres` user (`runuser`), which owns the directory.

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
    /// The network namespace the server runs in, with the veth links made for workers.
    netns: Option<Netns>,
}

/// A network namespace for the server, and one per worker linked to it by a veth pair.
struct Netns {
    server: String,
    workers: Vec<String>,
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
            netns: None,
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

    /// A fresh server in a network namespace of its own, listening on all its addresses (TCP,
    /// password) and on its unix socket; `None` where the machine does not allow namespaces
    /// (not root, or no `ip netns`).
    pub fn start_in_netns() -> Option<Self> {
        let server = format!("svdb{}", std::process::id());
        let made = Command::new("ip")
            .args(["netns", "add", &server])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !made {
            return None;
        }
        ip(&["-n", &server, "link", "set", "lo", "up"]);
        let mut pg = Self::start_with(false);
        // Stop the loopback-only server; restart it inside the namespace on every address.
        pg.ctl(&["stop", "-m", "fast", "-w"]);
        let hba = pg.data().join("pg_hba.conf");
        let mut rules = std::fs::read_to_string(&hba).unwrap();
        rules.push_str("host all all 10.77.0.0/16 scram-sha-256\n");
        std::fs::write(&hba, rules).unwrap();
        pg.tcp = Some(5432);
        pg.netns = Some(Netns {
            server,
            workers: Vec::new(),
        });
        pg.ctl(&["start", "-w", "-t", "60"]);
        Some(pg)
    }

    /// A namespace for worker `i`, linked to the server's by a veth pair: the worker reaches
    /// the server at `10.77.i.1`, and nothing else. Returns the namespace and the URL.
    pub fn worker_netns(&mut self, i: u8, password: &str) -> (String, String) {
        let netns = self.netns.as_mut().expect("a server in a namespace");
        let worker = format!("svw{i}x{}", std::process::id());
        ip(&["netns", "add", &worker]);
        let (a, b) = (
            format!("svd{i}x{}", std::process::id()),
            format!("svw{i}y{}", std::process::id()),
        );
        ip(&["link", "add", &a, "type", "veth", "peer", "name", &b]);
        ip(&["link", "set", &a, "netns", &netns.server]);
        ip(&["link", "set", &b, "netns", &worker]);
        ip(&[
            "-n",
            &netns.server,
            "addr",
            "add",
            &format!("10.77.{i}.1/24"),
            "dev",
            &a,
        ]);
        ip(&[
            "-n",
            &worker,
            "addr",
            "add",
            &format!("10.77.{i}.2/24"),
            "dev",
            &b,
        ]);
        for (ns, dev) in [(&netns.server, &a), (&worker, &b)] {
            ip(&["-n", ns, "link", "set", dev, "up"]);
            ip(&["-n", ns, "link", "set", "lo", "up"]);
        }
        netns.workers.push(worker.clone());
        let url = format!("postgres://{USER}:{password}@10.77.{i}.1:5432/postgres");
        (worker, url)
    }

    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    /// Runs the server binary `name` as the server's user.
    fn run(&self, name: &str, args: &[&str]) {
        let mut command = self.command(name);
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

    /// `name` (a server binary) as the server's user, in its namespace.
    fn command(&self, name: &str) -> Command {
        let program = self.bin.join(name);
        let mut command = match (&self.netns, &self.as_user) {
            (Some(netns), Some(user)) => {
                let mut c = Command::new("ip");
                c.args(["netns", "exec", &netns.server, "runuser", "-u", user, "--"])
                    .arg(&program);
                c
            }
            (Some(netns), None) => {
                let mut c = Command::new("ip");
                c.args(["netns", "exec", &netns.server]).arg(&program);
                c
            }
            (None, Some(user)) => {
                let mut c = Command::new("runuser");
                c.args(["-u", user, "--"]).arg(&program);
                c
            }
            (None, None) => Command::new(&program),
        };
        command.stdin(Stdio::null());
        command
    }

    fn ctl(&self, args: &[&str]) {
        let listen = match (self.tcp, &self.netns) {
            (Some(port), Some(_)) => format!("-c listen_addresses=* -c port={port}"),
            (Some(port), None) => format!("-c listen_addresses=127.0.0.1 -c port={port}"),
            (None, _) => "-c listen_addresses=''".to_owned(),
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

/// Runs `ip` with `args`, asserting it succeeds.
fn ip(args: &[&str]) {
    let status = Command::new("ip").args(args).status().expect("ip");
    assert!(status.success(), "ip {args:?}");
}

impl Drop for Pg {
    fn drop(&mut self) {
        let data = self.data();
        let _ = self
            .command("pg_ctl")
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
        if let Some(netns) = &self.netns {
            for ns in netns.workers.iter().chain([&netns.server]) {
                let _ = Command::new("ip").args(["netns", "del", ns]).status();
            }
        }
    }
}
