//! The link to the run (Share): shown under the header, selectable, with a Copy button; or why there is none.

use yew::prelude::*;

use crate::cmd::Cmd;
use crate::format::fmt_secs;
use crate::view::{ShareState, ShareView};

/// The bar, as a plain function of the view (a component costs about 2 KiB of yew's code; the bar shows one link).
pub fn share_bar(s: &ShareView, on_cmd: &Callback<Cmd>) -> Html {
    let close = on_cmd.reform(|_: MouseEvent| Cmd::CloseShare);
    let what = format!("Link to this run at t = {} (history hash {:016x})", fmt_secs(s.at), s.hash);
    let body = match &s.state {
        ShareState::Making => html! { <span>{ format!("{what}: compressing…") }</span> },
        ShareState::Failed(why) => html! {
            <span role="alert">{ format!("No link: {why}") }</span>
        },
        ShareState::Made { url, copied } => {
            let select =
                Callback::from(|e: FocusEvent| e.target_unchecked_into::<web_sys::HtmlInputElement>().select());
            let copy = {
                let (url, on_cmd) = (url.clone(), on_cmd.clone());
                Callback::from(move |_: MouseEvent| {
                    let (url, on_cmd) = (url.clone(), on_cmd.clone());
                    wasm_bindgen_futures::spawn_local(async move {
                        on_cmd.emit(Cmd::Copied(crate::share::copy(&url).await));
                    });
                })
            };
            let said = match copied {
                Some(true) => "copied to the clipboard",
                Some(false) => "the browser did not allow the clipboard: select the link and copy it",
                None => "",
            };
            html! {
                <>
                    <span class="share-what">{ format!("{what}, {} characters:", url.len()) }</span>
                    <input data-testid="share-url" class="share-url" readonly=true value={url.to_string()}
                        aria-label="Link to this run" onfocus={select} />
                    <button class="btn" type="button" onclick={copy}>{ "Copy" }</button>
                    <span class="share-said" aria-live="polite">{ said }</span>
                </>
            }
        }
    };
    html! {
        <div class="share-bar" data-testid="share-bar">
            { body }
            <button class="icon" aria-label="Close the link" onclick={close}>{ "✕" }</button>
        </div>
    }
}
