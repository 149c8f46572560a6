/// `console.css`: the agents' console style (`/console/assets/console.css`).
enum ConsoleStyle {
    static let text = #"""
:root {
  color-scheme: light dark;
  --bg: #ffffff; --panel: #f6f7f9; --fg: #1b1f24; --muted: #5b6470; --line: #d4d9df;
  --accent: #1f5fbf; --focus: #c2410c; --error: #b42318; --selected: #e4edfb;
  --customer: #eef1f5; --agent: #dfeee2; --bot: #f3ecdc;
}
@media (prefers-color-scheme: dark) {
  :root { --bg: #15181c; --panel: #1c2026; --fg: #e8ebef; --muted: #a3acb7; --line: #343a42;
          --accent: #3b7be0; --focus: #fb923c; --error: #f97066; --selected: #1f3354;
          --customer: #242a31; --agent: #1f3325; --bot: #332c1c; }
}
* { box-sizing: border-box; }
html, body { margin: 0; min-height: 100%; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: var(--bg); color: var(--fg); }
.console { max-width: 80rem; margin: 0 auto; padding: 0 1rem 2rem; }
.console-header { display: flex; align-items: center; gap: 1rem; padding: .8rem 0; border-bottom: 1px solid var(--line); }
.console-header h1 { font-size: 1.2rem; margin: 0; flex: 1; }
.who { margin: 0; color: var(--muted); }
h2 { font-size: 1rem; margin: 1rem 0 .5rem; }
input, textarea { font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--line); border-radius: .4rem; padding: .45rem .6rem; }
button { font: inherit; cursor: pointer; border: 1px solid var(--accent); background: var(--accent); color: #fff; border-radius: .4rem; padding: .4rem .9rem; }
button:disabled { opacity: .5; cursor: default; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.signin { display: grid; gap: .5rem; max-width: 22rem; margin: 2rem 0; }
.error { color: var(--error); margin: .3rem 0; min-height: 1.2em; }
.empty { color: var(--muted); }
.workspace { display: grid; grid-template-columns: minmax(16rem, 1fr) minmax(20rem, 2fr); gap: 1.5rem; align-items: start; }
.broadcasts { grid-column: 1 / -1; }
@media (max-width: 50rem) { .workspace { grid-template-columns: 1fr; } }
.ticket-list, .broadcast-list, .conversation { list-style: none; margin: 0; padding: 0; }
.ticket-list { display: flex; flex-direction: column; gap: .5rem; }
.ticket-item { border: 1px solid var(--line); border-radius: .6rem; padding: .5rem .7rem; background: var(--panel); }
.ticket-item.selected { background: var(--selected); border-color: var(--accent); }
.ticket-item .select { background: none; color: inherit; border: 0; padding: 0; font-weight: 700; text-align: left; text-decoration: underline; }
.ticket-meta, .ticket-customer, .ticket-note { margin: .15rem 0; }
.ticket-meta { color: var(--muted); font-size: .85rem; }
.status-badge { display: inline-block; border: 1px solid var(--line); border-radius: 1rem; padding: 0 .45rem; font-size: .8rem; }
.last-lines { margin: .3rem 0 0; padding: 0; list-style: none; font-size: .85rem; color: var(--muted); }
.last-lines li { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.ticket { border: 1px solid var(--line); border-radius: .6rem; padding: 0 1rem 1rem; }
.details { display: grid; grid-template-columns: auto 1fr; gap: .15rem .8rem; margin: 0 0 .8rem; }
.details dt { color: var(--muted); }
.details dd { margin: 0; overflow-wrap: anywhere; }
.conversation { display: flex; flex-direction: column; gap: .4rem; max-height: 26rem; overflow-y: auto; padding: .5rem; border: 1px solid var(--line); border-radius: .4rem; }
.line { padding: .35rem .6rem; border-radius: .5rem; max-width: 90%; white-space: pre-wrap; overflow-wrap: anywhere; }
.line .who-said { display: block; font-size: .75rem; color: var(--muted); }
.line.customer { background: var(--customer); align-self: flex-start; }
.line.bot { background: var(--bot); align-self: flex-end; }
.line.agent { background: var(--agent); align-self: flex-end; }
.actions { display: flex; gap: .5rem; margin: .6rem 0; }
.reply { display: grid; gap: .4rem; }
.reply textarea { resize: vertical; }
.reply button { justify-self: start; }
.broadcast-list { display: grid; gap: .6rem; }
.broadcast-item label { display: block; font-size: .9rem; }
.broadcast-item progress { width: 100%; height: 1rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap; }
[hidden] { display: none !important; }

"""#
}
