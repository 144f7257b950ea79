//! Connection strings without their passwords, for messages.
//!
//! libpq takes two forms, and a password can sit in either: a URL
//! (`postgres://user:secret@host/db?password=secret`) and a key-value string, whose values may be
//! single-quoted with backslash escapes (`password = 'a b c'`). Rather than tokenize either by
//! hand (a tokenizer of our own once leaked a password), the string is parsed by the `postgres`
//! crate, the parser that connects with it, and the message is printed from the parsed
//! [`postgres::Config`]: its hosts, ports, user and database, and `password=***` when it has
//! one. The password's bytes are never read. A string the parser refuses is not shown at all.

use std::fmt::Write;

use postgres::config::Host;

const MASK: &str = "***";

/// The connection `url` names, as `host=... port=... user=... password=*** dbname=...` (the
/// fields it sets), without its password, whichever form it is written in.
pub fn redact(url: &str) -> String {
    let Ok(config) = url.parse::<postgres::Config>() else {
        return "(a connection string the postgres crate cannot parse; not shown)".to_owned();
    };
    let mut shown = String::new();
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .map(|host| match host {
            // No host name has an '@': the parser (as libpq) ends the user info at the first
            // '@', so one here is the rest of a password that was not percent-encoded.
            Host::Tcp(name) if name.contains('@') => MASK.to_owned(),
            Host::Tcp(name) => name.clone(),
            Host::Unix(path) => path.display().to_string(),
        })
        .collect();
    if !hosts.is_empty() {
        let _ = write!(shown, " host={}", quoted(&hosts.join(",")));
    }
    if !config.get_ports().is_empty() {
        let ports: Vec<String> = config.get_ports().iter().map(u16::to_string).collect();
        let _ = write!(shown, " port={}", ports.join(","));
    }
    if let Some(user) = config.get_user() {
        let _ = write!(shown, " user={}", quoted(user));
    }
    if config.get_password().is_some() {
        let _ = write!(shown, " password={MASK}");
    }
    if let Some(dbname) = config.get_dbname() {
        let _ = write!(shown, " dbname={}", quoted(dbname));
    }
    shown.trim_start().to_owned()
}

/// `value` as a key-value string writes it: quoted when it is empty or holds a space or a quote.
fn quoted(value: &str) -> String {
    if value.is_empty() || value.contains(|c: char| c.is_whitespace() || c == '\'' || c == '\\') {
        format!("'{}'", value.replace('\\', "\\\\").replace('\'', "\\'"))
    } else {
        value.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::redact;

    /// No secret of `text` appears in what is shown of it.
    fn hides(text: &str, secrets: &[&str]) -> String {
        let shown = redact(text);
        for secret in secrets {
            assert!(!shown.contains(secret), "{text} -> {shown}");
        }
        shown
    }

    #[test]
    fn passwords_are_never_printed_in_urls() {
        assert_eq!(
            hides("postgres://prover:s3cret@db.example:5432/jobs", &["s3cret"]),
            "host=db.example port=5432 user=prover password=*** dbname=jobs"
        );
        assert_eq!(
            hides(
                "postgresql://prover@10.0.0.1/jobs?password=s3cret&sslmode=disable",
                &["s3cret"]
            ),
            "host=10.0.0.1 port=5432 user=prover password=*** dbname=jobs"
        );
        assert_eq!(
            hides(
                "postgresql://prover:a%40b@h1,h2/jobs?sslmode=disable&password=y",
                &["a%40b", "a@b", "=y"]
            ),
            "host=h1,h2 port=5432,5432 user=prover password=*** dbname=jobs"
        );
        assert_eq!(
            redact("postgres://host/db"),
            "host=host port=5432 dbname=db"
        );
        // An '@' in the password, not percent-encoded: the parser (as libpq) takes the rest
        // of the password into the host name, which is masked.
        assert_eq!(
            hides("postgres://u:p@ss@host/db", &["p@ss", "ss@", "=ss"]),
            "host=*** port=5432 user=u password=*** dbname=db"
        );
    }

    #[test]
    fn passwords_are_never_printed_in_key_value_strings() {
        assert_eq!(
            hides(
                "host=/tmp user=prover password=s3cret dbname=jobs",
                &["s3cret"]
            ),
            "host=/tmp user=prover password=*** dbname=jobs"
        );
        assert_eq!(
            hides("host=/tmp password = hunter2 dbname=jobs", &["hunter2"]),
            "host=/tmp password=*** dbname=jobs"
        );
        assert_eq!(
            hides("password='a b c' host=/tmp", &["a b c"]),
            "host=/tmp password=***"
        );
        assert_eq!(
            hides(
                r"host=/tmp password='it\'s a secret' user='the prover'",
                &["secret", "it"]
            ),
            "host=/tmp user='the prover' password=***"
        );
        // An unterminated quote, or text that is no pair: nothing of it is shown.
        for text in [
            "user=u password='abc",
            "user='abc password=x",
            "user=u hunter2",
        ] {
            let shown = hides(text, &["abc", "hunter2", "=x"]);
            assert!(shown.contains("not shown"), "{text} -> {shown}");
        }
        assert_eq!(redact("host=/tmp dbname=jobs"), "host=/tmp dbname=jobs");
        for text in [
            "password = hunter2",
            "password='a b c'",
            "password = 'a b c'",
            r"password=a\ b\ c",
        ] {
            assert_eq!(hides(text, &["hunter2", "a b c", "b", "c"]), "password=***");
        }
    }
}
