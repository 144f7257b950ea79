//! `host serve` processes and a client of them: reqwest, as zkboost's OpenVM backend, making
//! the requests that backend makes (`crates/server/src/proof/zkvm/cluster_client/openvm.rs`).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use reqwest::blocking::{multipart, Client, Response};
use serde_json::{json, Value};

/// A `host serve` process, killed when dropped.
pub struct Server {
    child: Option<Child>,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
}

/// A free local port.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Server {
    /// Starts `host serve` on `url` at `port`, writing its ELFs to `elf_dir`, and waits until
    /// it answers `/healthz`.
    pub fn start(url: &str, port: u16, elf_dir: &Path, name: &str) -> Self {
        Self::start_with(url, port, elf_dir, name, &[])
    }

    /// [`Server::start`] with `extra` arguments.
    pub fn start_with(url: &str, port: u16, elf_dir: &Path, name: &str, extra: &[&str]) -> Self {
        let child = Command::new(env!("CARGO_BIN_EXE_host"))
            .args(["serve", "--db", url, "--listen"])
            .arg(format!("127.0.0.1:{port}"))
            .arg("--elf-dir")
            .arg(elf_dir)
            .args(["--lease-secs", "10", "--name", name])
            .args(extra)
            .stdout(Stdio::inherit())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start host serve");
        let server = Self {
            child: Some(child),
            base: format!("http://127.0.0.1:{port}"),
        };
        let started = Instant::now();
        let client = Client::new();
        // Building the loadout's two guests: seconds when their target is warm.
        while client
            .get(format!("{}/healthz", server.base))
            .send()
            .map(|r| r.status() != 200)
            .unwrap_or(true)
        {
            assert!(
                started.elapsed() < Duration::from_secs(1800),
                "host serve never answered"
            );
            std::thread::sleep(Duration::from_millis(250));
        }
        server
    }

    /// Kills it (SIGKILL: a crash, not a shutdown).
    pub fn kill(mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().unwrap();
            child.wait().unwrap();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// zkboost's `encode_stdin`: one buffer, no deferrals.
pub fn encode_stdin(stdin: &[u8]) -> Vec<u8> {
    let mut encoded = 1u64.to_le_bytes().to_vec();
    encoded.extend_from_slice(&(stdin.len() as u64).to_le_bytes());
    encoded.extend_from_slice(stdin);
    encoded.extend_from_slice(&0u64.to_le_bytes());
    encoded
}

/// The status and the body (JSON when it is JSON, else the text as a JSON string).
pub fn answer(response: Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let text = response.text().unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, body)
}

/// A client of one server.
pub struct Api {
    client: Client,
    /// The server's base URL.
    pub base: String,
}

impl Api {
    /// A client of `base`.
    pub fn new(base: &str) -> Self {
        Self {
            client: Client::builder()
                .timeout(Duration::from_secs(60))
                .build()
                .unwrap(),
            base: base.to_owned(),
        }
    }

    /// `GET path`.
    pub fn get(&self, path: &str) -> (u16, Value) {
        answer(
            self.client
                .get(format!("{}{path}", self.base))
                .send()
                .unwrap(),
        )
    }

    /// `POST path` with a JSON body.
    pub fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        answer(
            self.client
                .post(format!("{}{path}", self.base))
                .json(body)
                .send()
                .unwrap(),
        )
    }

    /// `POST path` with a raw body.
    pub fn post_raw(&self, path: &str, body: &[u8], content_type: &str) -> (u16, Value) {
        answer(
            self.client
                .post(format!("{}{path}", self.base))
                .header("content-type", content_type)
                .body(body.to_vec())
                .send()
                .unwrap(),
        )
    }

    /// `POST /upload_input/{uuid}` with `bytes` as part `part` (zkboost: `input`, file name
    /// `input.bin`).
    pub fn upload(&self, uuid: &str, part: &str, bytes: &[u8]) -> (u16, Value) {
        let form = multipart::Form::new().part(
            part.to_owned(),
            multipart::Part::bytes(bytes.to_vec()).file_name("input.bin"),
        );
        answer(
            self.client
                .post(format!("{}/upload_input/{uuid}", self.base))
                .multipart(form)
                .send()
                .unwrap(),
        )
    }

    /// `POST /start_proof` as zkboost sends it.
    pub fn start(&self, uuid: &str, program: &str) -> (u16, Value) {
        self.post(
            "/start_proof",
            &json!({
                "proof_uuid": uuid,
                "program": { "name": program, "version": 0 },
                "proof_type": "stark",
            }),
        )
    }

    /// `GET /proof/{uuid}`: the status and the bytes.
    pub fn download(&self, uuid: &str) -> (u16, Vec<u8>) {
        let response = self
            .client
            .get(format!("{}/proof/{uuid}", self.base))
            .send()
            .unwrap();
        let status = response.status().as_u16();
        (status, response.bytes().unwrap().to_vec())
    }

    /// Opens `GET /proof_events/{uuid}`; the stream's `status` events as they come.
    pub fn events(&self, uuid: &str) -> Events {
        let response = Client::builder()
            .timeout(None)
            .build()
            .unwrap()
            .get(format!("{}/proof_events/{uuid}", self.base))
            .send()
            .unwrap();
        assert_eq!(response.status(), 200, "proof_events/{uuid}");
        assert!(response
            .headers()
            .get("content-type")
            .is_some_and(|t| t.to_str().unwrap().starts_with("text/event-stream")));
        Events {
            lines: BufReader::new(response),
        }
    }
}

/// A server-sent event stream.
pub struct Events {
    lines: BufReader<Response>,
}

impl Events {
    /// The next `status` event's data (JSON), or `None` when the stream ends (or is cut).
    pub fn next_status(&mut self) -> Option<Value> {
        let mut event = String::new();
        let mut data = String::new();
        loop {
            let mut line = String::new();
            match self.lines.read_line(&mut line) {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            }
            let line = line.trim_end_matches(['\r', '\n']);
            if line.is_empty() {
                if event == "status" {
                    return Some(serde_json::from_str(&data).expect("a status is JSON"));
                }
                event.clear();
                data.clear();
            } else if let Some(name) = line.strip_prefix("event:") {
                event = name.trim().to_owned();
            } else if let Some(value) = line.strip_prefix("data:") {
                data.push_str(value.trim_start());
            }
        }
    }

    /// Every status until the stream ends.
    pub fn rest(mut self) -> Vec<Value> {
        std::iter::from_fn(|| self.next_status()).collect()
    }
}
