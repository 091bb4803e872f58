//! Running host calls side by side (the two scope searches, the profile, the full texts;
//! the demo's live search) without an executor of our own: the futures are polled together
//! in one task.

use std::future::{poll_fn, Future};
use std::pin::{pin, Pin};
use std::task::Poll;

/// Both outputs, once both futures are done.
pub async fn join2<A: Future, B: Future>(a: A, b: B) -> (A::Output, B::Output) {
    let mut a = pin!(a);
    let mut b = pin!(b);
    let (mut ra, mut rb) = (None, None);
    poll_fn(move |cx| {
        if ra.is_none() {
            if let Poll::Ready(v) = a.as_mut().poll(cx) {
                ra = Some(v);
            }
        }
        if rb.is_none() {
            if let Poll::Ready(v) = b.as_mut().poll(cx) {
                rb = Some(v);
            }
        }
        match (ra.take(), rb.take()) {
            (Some(x), Some(y)) => Poll::Ready((x, y)),
            (x, y) => {
                ra = x;
                rb = y;
                Poll::Pending
            }
        }
    })
    .await
}

/// Every output, in order, once all futures are done.
pub async fn join_all<F: Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut futures: Vec<Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut outs: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    poll_fn(move |cx| {
        for (f, out) in futures.iter_mut().zip(outs.iter_mut()) {
            if out.is_none() {
                if let Poll::Ready(v) = f.as_mut().poll(cx) {
                    *out = Some(v);
                }
            }
        }
        if outs.iter().all(Option::is_some) {
            Poll::Ready(outs.drain(..).flatten().collect())
        } else {
            Poll::Pending
        }
    })
    .await
}
