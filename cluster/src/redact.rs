//! Connection strings without their passwords, for messages.
//!
//! libpq takes two forms, and a password can sit in either: a URL
//! (`postgres://user:secret@host/db?password=secret`) and a key-value string, whose values may be
//! single-quoted with backslash escapes and whose `=` may have spaces around it
//! (`password = 'a b c'`). A split on whitespace misses both of the latter, so the key-value form
//! is tokenized as libpq does; what cannot be tokenized is masked from the first bad character on.

const MASK: &str = "***";

/// `url` without its password: `postgres://user:***@host/db`, `...?password=***`, and every
/// `password` key of a key-value string.
pub fn redact(url: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => redact_url(scheme, rest),
        None => redact_key_values(url),
    }
}

fn redact_url(scheme: &str, rest: &str) -> String {
    // The authority ends at the first '/' or '?'; its userinfo at its last '@'.
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{user}:{MASK}@{host}"),
            None => format!("{userinfo}@{host}"),
        },
        None => authority.to_owned(),
    };
    let tail = match tail.split_once('?') {
        Some((path, query)) => {
            let query: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((k, _)) if is_password(k) => format!("{k}={MASK}"),
                    _ => pair.to_owned(),
                })
                .collect();
            format!("{path}?{}", query.join("&"))
        }
        None => tail.to_owned(),
    };
    format!("{scheme}://{authority}{tail}")
}

fn is_password(key: &str) -> bool {
    key.trim().eq_ignore_ascii_case("password")
}

/// A key-value string, each pair written back as `key=value` with the password's value masked.
fn redact_key_values(text: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut chars = text.char_indices().peekable();
    let skip_space = |chars: &mut std::iter::Peekable<std::str::CharIndices>| {
        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
    };
    loop {
        skip_space(&mut chars);
        if chars.peek().is_none() {
            break;
        }
        let mut key = String::new();
        while let Some((_, c)) = chars.next_if(|(_, c)| *c != '=' && !c.is_whitespace()) {
            key.push(c);
        }
        skip_space(&mut chars);
        if chars.next_if(|(_, c)| *c == '=').is_none() {
            // Not `key = value`: libpq refuses it; show nothing of the rest.
            out.push(MASK.to_owned());
            break;
        }
        skip_space(&mut chars);
        let mut value = String::new();
        let mut closed = true;
        if chars.next_if(|(_, c)| *c == '\'').is_some() {
            closed = false;
            while let Some((_, c)) = chars.next() {
                match c {
                    '\\' => value.extend(chars.next().map(|(_, c)| c)),
                    '\'' => {
                        closed = true;
                        break;
                    }
                    c => value.push(c),
                }
            }
        } else {
            while let Some((_, c)) = chars.next_if(|(_, c)| !c.is_whitespace()) {
                match c {
                    '\\' => value.extend(chars.next().map(|(_, c)| c)),
                    c => value.push(c),
                }
            }
        }
        if is_password(&key) || !closed {
            out.push(format!("{key}={MASK}"));
        } else if value.is_empty() || value.contains(|c: char| c.is_whitespace() || c == '\'') {
            out.push(format!(
                "{key}='{}'",
                value.replace('\\', "\\\\").replace('\'', "\\'")
            ));
        } else {
            out.push(format!("{key}={value}"));
        }
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn passwords_are_never_printed_in_urls() {
        assert_eq!(
            redact("postgres://prover:s3cret@db.example:5432/jobs"),
            "postgres://prover:***@db.example:5432/jobs"
        );
        assert_eq!(
            redact("postgresql://prover@10.0.0.1/jobs?password=s3cret&sslmode=disable"),
            "postgresql://prover@10.0.0.1/jobs?password=***&sslmode=disable"
        );
        assert_eq!(
            redact("postgresql://prover:a%40b@h1,h2/jobs?sslmode=disable&PASSWORD=x&password=y"),
            "postgresql://prover:***@h1,h2/jobs?sslmode=disable&PASSWORD=***&password=***"
        );
        // An '@' in the password (not percent-encoded) and none in the path.
        assert_eq!(
            redact("postgres://u:p@ss@host/db"),
            "postgres://u:***@host/db"
        );
        assert_eq!(redact("postgres://host/db"), "postgres://host/db");
    }

    #[test]
    fn passwords_are_never_printed_in_key_value_strings() {
        assert_eq!(
            redact("host=/tmp user=prover password=s3cret dbname=jobs"),
            "host=/tmp user=prover password=*** dbname=jobs"
        );
        assert_eq!(
            redact("host=/tmp password = hunter2 dbname=jobs"),
            "host=/tmp password=*** dbname=jobs"
        );
        assert_eq!(
            redact("password='a b c' host=/tmp"),
            "password=*** host=/tmp"
        );
        assert_eq!(
            redact(r"host=/tmp password='it\'s a secret' user='the prover'"),
            "host=/tmp password=*** user='the prover'"
        );
        assert_eq!(redact("Password =\tx"), "Password=***");
        // An unterminated quote, or text that is no pair: nothing after it is shown.
        assert_eq!(redact("user=u password='abc"), "user=u password=***");
        assert_eq!(redact("user='abc password=x"), "user=***");
        assert_eq!(redact("user=u hunter2"), "user=u ***");
        assert_eq!(redact("host=/tmp dbname=jobs"), "host=/tmp dbname=jobs");
        for text in [
            "password = hunter2",
            "password='a b c'",
            "password = 'a b c'",
            r"password=a\ b\ c",
        ] {
            let shown = redact(text);
            for secret in ["hunter2", "a b c", "b", "c"] {
                assert!(!shown.contains(secret), "{text} -> {shown}");
            }
        }
    }
}
