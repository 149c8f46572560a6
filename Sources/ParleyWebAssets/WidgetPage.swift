/// `widget.html`: the chat widget's page. `{{bot}}` and `{{botName}}` are replaced by
/// `WebAssets.widgetPage(bot:botName:)` with HTML-escaped values; everything else is static.
/// No inline script or style: `widget.js` and `widget.css` come by URL.
enum WidgetPage {
    static let template = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Chat with {{botName}}</title>
<link rel="stylesheet" href="/chat/assets/widget.css">
<script src="/chat/assets/dom.js" defer></script>
<script src="/chat/assets/widget.js" defer></script>
</head>
<body>
<main id="chat" class="chat" data-bot="{{bot}}" aria-labelledby="chat-title">
  <header class="chat-header">
    <h1 id="chat-title">{{botName}}</h1>
    <p id="status" class="status" role="status" aria-live="polite"></p>
  </header>
  <form id="start" class="start" novalidate>
    <label for="name">Your name <span class="hint">(optional)</span></label>
    <div class="row">
      <input id="name" name="name" type="text" autocomplete="name" maxlength="80">
      <button type="submit" id="start-button">Start chat</button>
    </div>
  </form>
  <ol id="messages" class="messages" role="log" aria-live="polite" aria-relevant="additions" aria-label="Conversation with {{botName}}"></ol>
  <form id="composer" class="composer" hidden novalidate>
    <label for="text" class="visually-hidden">Message</label>
    <textarea id="text" name="text" rows="2" autocomplete="off" placeholder="Write a message… (Enter sends, Shift+Enter for a new line)"></textarea>
    <button type="submit" id="send">Send</button>
  </form>
</main>
</body>
</html>

"""#
}
