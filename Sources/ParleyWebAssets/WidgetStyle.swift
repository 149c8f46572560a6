/// `widget.css`: the chat widget's style (`/chat/assets/widget.css`).
enum WidgetStyle {
    static let text = #"""
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1b1f24; --muted: #5b6470; --line: #d4d9df;
  --bot: #eef1f5; --visitor: #1f5fbf; --visitor-fg: #ffffff;
  --accent: #1f5fbf; --greeting: #fff4d6; --greeting-line: #e0b84a; --focus: #c2410c;
}
@media (prefers-color-scheme: dark) {
  :root { --bg: #15181c; --fg: #e8ebef; --muted: #a3acb7; --line: #343a42;
          --bot: #242a31; --visitor: #3b7be0; --greeting: #3a3120; --greeting-line: #b08a2e; --focus: #fb923c; }
}
* { box-sizing: border-box; }
html, body { height: 100%; margin: 0; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: var(--bg); color: var(--fg); }
.chat { display: flex; flex-direction: column; height: 100%; max-width: 44rem; margin: 0 auto; }
.chat-header { display: flex; align-items: baseline; justify-content: space-between; gap: 1rem;
               padding: .6rem 1rem; border-bottom: 1px solid var(--line); }
.chat-header h1 { font-size: 1.1rem; margin: 0; }
.status { margin: 0; color: var(--muted); font-size: .85rem; }
.status.warn { color: var(--focus); font-weight: 600; }
.start { padding: .8rem 1rem; border-bottom: 1px solid var(--line); }
.start label { display: block; margin-bottom: .3rem; font-weight: 600; }
.hint { font-weight: normal; color: var(--muted); }
.row { display: flex; gap: .5rem; }
input, textarea { font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--line);
                  border-radius: .4rem; padding: .45rem .6rem; }
.row input { flex: 1; }
button { font: inherit; cursor: pointer; border: 1px solid var(--accent); background: var(--accent); color: #fff;
         border-radius: .4rem; padding: .45rem .9rem; }
button:disabled { opacity: .55; cursor: default; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.messages { flex: 1; overflow-y: auto; list-style: none; margin: 0; padding: 1rem; display: flex; flex-direction: column; gap: .6rem; }
.msg { max-width: 85%; display: flex; flex-direction: column; gap: .25rem; }
.msg.from-bot { align-self: flex-start; }
.msg.from-visitor { align-self: flex-end; align-items: flex-end; }
.sender { font-size: .75rem; color: var(--muted); }
.bubble { padding: .5rem .75rem; border-radius: .8rem; background: var(--bot); white-space: pre-wrap; overflow-wrap: anywhere; }
.from-visitor .bubble { background: var(--visitor); color: var(--visitor-fg); }
.from-visitor .bubble a { color: inherit; }
.card { border: 1px solid var(--line); border-radius: .8rem; padding: .6rem .8rem; background: var(--bg); overflow-wrap: anywhere; }
.card.greeting { background: var(--greeting); border-color: var(--greeting-line); border-left-width: 4px; }
.card .summary { font-weight: 700; margin: 0 0 .2rem; }
.card .card-title { font-weight: 700; margin: 0; }
.card .card-sub, .card .description { color: var(--muted); margin: .1rem 0 0; }
.card dl { display: grid; grid-template-columns: auto 1fr; gap: .1rem .6rem; margin: .4rem 0 0; }
.card dt { color: var(--muted); }
.card dd { margin: 0; }
.card img { max-width: 100%; height: auto; border-radius: .4rem; display: block; }
.card .avatar { width: 3rem; height: 3rem; object-fit: cover; border-radius: 50%; float: right; margin-left: .5rem; }
.quote { margin: 0; padding: .2rem .6rem; border-left: 3px solid var(--line); color: var(--muted); font-size: .9rem;
         white-space: pre-wrap; overflow-wrap: anywhere; }
.reactions { display: flex; flex-wrap: wrap; gap: .25rem; }
.chip { background: var(--bot); color: var(--fg); border: 1px solid var(--line); border-radius: 1rem; padding: .05rem .5rem; font-size: .85rem; }
.chip[aria-pressed="true"] { border-color: var(--accent); }
/* 👍/👎 offered under the bot's last message, and under any other one pointed at or focused. */
.chip.offer { background: transparent; opacity: 0; }
.msg.from-bot:last-child .chip.offer, .msg:hover .chip.offer, .msg:focus-within .chip.offer { opacity: .7; }
.chip.offer:hover, .chip.offer:focus-visible { opacity: 1; }
time { font-size: .7rem; color: var(--muted); }
.separator { align-self: center; color: var(--muted); font-size: .8rem; }
.composer { display: flex; gap: .5rem; padding: .6rem 1rem; border-top: 1px solid var(--line); }
.composer textarea { flex: 1; resize: vertical; min-height: 2.6rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap; }
[hidden] { display: none !important; }

"""#
}
