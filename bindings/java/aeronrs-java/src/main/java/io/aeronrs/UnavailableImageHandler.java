package io.aeronrs;

/**
 * Told when an image leaves a subscription (its publisher closed, timed out or was killed);
 * runs on the client conductor thread, or in {@link Subscription#close()} on the closing
 * thread. The image is closed once this returns.
 */
@FunctionalInterface
public interface UnavailableImageHandler
{
    /** @param image the image that is no longer available. */
    void onUnavailableImage(Image image);
}
