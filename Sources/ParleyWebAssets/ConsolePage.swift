/// `console.html`: the agents' console page. Static: `console.js` fills it in after the agent
/// signs in. No inline script or style: `console.js` and `console.css` come by URL.
enum ConsolePage {
    static let text = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Parley — agents' console</title>
<link rel="stylesheet" href="/console/assets/console.css">
<script src="/console/assets/dom.js" defer></script>
<script src="/console/assets/console.js" defer></script>
</head>
<body>
<main id="console" class="console" aria-labelledby="console-title">
  <header class="console-header">
    <h1 id="console-title">Agents' console</h1>
    <p id="who" class="who" role="status" aria-live="polite"></p>
    <button type="button" id="signout" hidden>Sign out</button>
  </header>
  <form id="signin" class="signin" novalidate>
    <h2>Sign in</h2>
    <label for="token">Agent token</label>
    <input id="token" name="token" type="password" autocomplete="current-password" required>
    <button type="submit" id="signin-button">Sign in</button>
    <p id="signin-error" class="error" role="alert"></p>
  </form>
  <div id="workspace" class="workspace" hidden>
    <section class="tickets" aria-labelledby="tickets-title">
      <h2 id="tickets-title">Tickets</h2>
      <p id="tickets-empty" class="empty">No open tickets in your queues.</p>
      <ul id="tickets" class="ticket-list"></ul>
    </section>
    <section id="ticket" class="ticket" aria-labelledby="ticket-title">
      <h2 id="ticket-title">Conversation</h2>
      <p id="ticket-none" class="empty">Select a ticket to see its conversation.</p>
      <div id="ticket-view" hidden>
        <dl id="ticket-details" class="details"></dl>
        <ol id="conversation" class="conversation" role="log" aria-live="polite" aria-relevant="additions" aria-label="Conversation"></ol>
        <p id="ticket-error" class="error" role="alert"></p>
        <div class="actions">
          <button type="button" id="take">Take</button>
          <button type="button" id="resolve">Resolve</button>
        </div>
        <form id="reply" class="reply" novalidate>
          <label for="reply-text">Reply to the customer</label>
          <textarea id="reply-text" name="text" rows="3"></textarea>
          <button type="submit" id="reply-button">Send reply</button>
        </form>
      </div>
    </section>
    <section class="broadcasts" aria-labelledby="broadcasts-title">
      <h2 id="broadcasts-title">Broadcasts</h2>
      <p id="broadcasts-empty" class="empty">No broadcast running.</p>
      <ul id="broadcasts" class="broadcast-list"></ul>
    </section>
  </div>
</main>
</body>
</html>

"""#
}
