//! JS strings into Rust `String`s with the platform's `TextEncoder.encodeInto`, written
//! straight into wasm memory. wasm-bindgen's own conversion copies ASCII one character at a
//! time in a JS loop: for the JSON text of an 800-turn session (414 KB) that loop was a fifth
//! of `assemble`'s time; `encodeInto` is native.

use js_sys::{JsString, Uint8Array};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

#[wasm_bindgen]
extern "C" {
    type TextEncoder;
    #[wasm_bindgen(constructor)]
    fn new() -> TextEncoder;
    /// Encodes as much of `s` as fits into `dest`; never a partial character.
    #[wasm_bindgen(method, js_name = encodeInto)]
    fn encode_into(this: &TextEncoder, s: &JsString, dest: &Uint8Array) -> EncodeIntoResult;

    type EncodeIntoResult;
    /// UTF-16 units of the source consumed.
    #[wasm_bindgen(method, getter)]
    fn read(this: &EncodeIntoResult) -> f64;
    /// Bytes written.
    #[wasm_bindgen(method, getter)]
    fn written(this: &EncodeIntoResult) -> f64;
}

thread_local! {
    static ENCODER: TextEncoder = TextEncoder::new();
}

/// Strings shorter than this go through wasm-bindgen's conversion (a JS call less).
const SHORT: u32 = 1024;

/// The string's text (lone surrogates become U+FFFD, as `TextEncoder` makes them); `None` if
/// `v` is not a string.
pub fn text_of_js(v: &JsValue) -> Option<String> {
    let s: &JsString = wasm_bindgen::JsCast::dyn_ref(v)?;
    let units = s.length();
    if units < SHORT {
        return v.as_string();
    }
    // ASCII is one byte per unit: the common case fits in one call
    let mut buf: Vec<u8> = Vec::with_capacity(units as usize + 64);
    let mut read = 0u32;
    let mut rest = s.clone();
    loop {
        let spare = buf.capacity() - buf.len();
        // SAFETY: the view covers the vector's spare capacity; nothing allocates in wasm
        // memory (which could move or grow it) until the view's last use in `encode_into`.
        let r = unsafe {
            let view = Uint8Array::view_mut_raw(buf.as_mut_ptr().add(buf.len()), spare);
            ENCODER.with(|e| e.encode_into(&rest, &view))
        };
        let (units_read, bytes) = (r.read() as u32, r.written() as usize);
        if bytes > spare {
            return v.as_string(); // a host whose TextEncoder misreports: the slow, safe path
        }
        // SAFETY: encodeInto wrote `bytes` initialised bytes right after the vector's length.
        unsafe { buf.set_len(buf.len() + bytes) };
        if units_read == 0 && spare >= 4 {
            return v.as_string(); // no progress with room for any character: not trusted
        }
        read += units_read;
        if read >= units {
            break;
        }
        rest = s.slice(read, units);
        buf.reserve(((units - read) as usize) * 3);
    }
    String::from_utf8(buf).ok().or_else(|| v.as_string())
}
