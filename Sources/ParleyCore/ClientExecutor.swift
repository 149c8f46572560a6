/// An actor that only lends its executor: a `ChatClient` that does not share its outbox's
/// runs on one of these (an actor that names its executor must name one for every instance).
actor ClientExecutor {}
