/// `embed.js`: the embeddable script (`/chat/embed.js`). On another site,
/// `<script src="https://parley.example/chat/embed.js" data-bot="support" async></script>`
/// adds a floating button that opens the widget of `data-bot` in an iframe, from the origin the
/// script came from. It runs in the host page, so it styles its elements through the CSSOM
/// (never markup) and touches nothing else of the page.
enum EmbedScript {
    static let text = #"""
"use strict";
(function () {
  var script = document.currentScript;
  if (!script) return;
  var bot = script.getAttribute("data-bot") || "";
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(bot)) {
    if (window.console) window.console.error("parley embed.js: data-bot must name a bot (letters, digits, _ and -)");
    return;
  }
  var origin;
  try { origin = new URL(script.src, document.baseURI).origin; } catch (e) { return; }
  var label = script.getAttribute("data-label") || "Chat with us";
  var chatURL = origin + "/chat/" + encodeURIComponent(bot);

  function css(node, styles) {
    Object.keys(styles).forEach(function (key) { node.style.setProperty(key, styles[key]); });
  }

  var button = document.createElement("button");
  button.type = "button";
  button.textContent = label;
  button.setAttribute("aria-expanded", "false");
  button.setAttribute("aria-controls", "parley-chat-" + bot);
  css(button, {
    "position": "fixed", "right": "1.25rem", "bottom": "1.25rem", "z-index": "2147483000",
    "font": "600 15px/1.2 system-ui, sans-serif", "color": "#ffffff", "background": "#1f5fbf",
    "border": "0", "border-radius": "1.5rem", "padding": ".8rem 1.2rem", "cursor": "pointer",
    "box-shadow": "0 4px 14px rgba(0,0,0,.25)"
  });

  var frame = null;
  function open() {
    if (!frame) {
      frame = document.createElement("iframe");
      frame.id = "parley-chat-" + bot;
      frame.title = label;
      frame.src = chatURL;
      frame.setAttribute("referrerpolicy", "no-referrer");
      css(frame, {
        "position": "fixed", "right": "1.25rem", "bottom": "4.75rem", "z-index": "2147483000",
        "width": "min(24rem, calc(100vw - 2.5rem))", "height": "min(36rem, calc(100vh - 6.5rem))",
        "border": "1px solid #d4d9df", "border-radius": ".8rem", "background": "#ffffff",
        "box-shadow": "0 8px 28px rgba(0,0,0,.3)"
      });
      document.body.appendChild(frame);
    }
    frame.hidden = false;
    button.setAttribute("aria-expanded", "true");
    frame.focus();
  }
  function close() {
    if (frame) frame.hidden = true;
    button.setAttribute("aria-expanded", "false");
  }
  button.addEventListener("click", function () {
    if (button.getAttribute("aria-expanded") === "true") close(); else open();
  });
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && button.getAttribute("aria-expanded") === "true") { close(); button.focus(); }
  });

  function attach() { document.body.appendChild(button); }
  if (document.body) attach(); else document.addEventListener("DOMContentLoaded", attach);
})();

"""#
}
