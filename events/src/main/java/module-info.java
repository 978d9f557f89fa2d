/** The shared vocabulary: MGS codes and their pages, diagnostics, run events. Depends on nothing. */
module dev.magus.events {
    exports dev.magus.events;
}
