"""The guard's state machines in Chrome: which targets it installs itself on, which client
commands pass the gate, what it does with each paused request, what cookie reads may
return, the discovery answers, who holds "Preload pages" off, and which film frames are
kept. Pure: ``ajantik_cdp.proxy`` carries out what these decide."""
