package io.aeronrs;

/** Told when an image (a publisher's stream) joins a subscription; runs on the client conductor thread. */
@FunctionalInterface
public interface AvailableImageHandler
{
    /** @param image the image that became available. */
    void onAvailableImage(Image image);
}
