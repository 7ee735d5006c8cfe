//! TCP echo over 127.0.0.1:0 for the corpus suites (std only).
use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};

pub fn echo_roundtrip() -> io::Result<String> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let mut client = TcpStream::connect(listener.local_addr()?)?;
    let (mut conn, _) = listener.accept()?;
    client.write_all(b"ping")?;
    let mut buf = [0u8; 4];
    conn.read_exact(&mut buf)?;
    Ok(String::from_utf8_lossy(&buf).into_owned())
}
