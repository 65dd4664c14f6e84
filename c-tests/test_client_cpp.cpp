// The client API from C++17 through small RAII wrappers, as a C++ application would use
// aeronc.h: an embedded driver, a client, a publication, a subscription with a fragment
// assembler, and a counter; every handle is released by its destructor.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "aeronc.h"
#include "aeronmd.h"

namespace
{

[[noreturn]] void fail(const std::string &what)
{
    throw std::runtime_error(what + ": " + aeron_errmsg());
}

void check(int result, const char *what)
{
    if (result < 0)
    {
        fail(what);
    }
}

template<typename T, int (*Close)(T *)>
struct Closer
{
    void operator()(T *p) const
    {
        Close(p);
    }
};

// Polls `poll` until it reports completion, bounded by 20 s.
template<typename Poll>
void await(Poll poll, const char *what)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!poll())
    {
        if (std::chrono::steady_clock::now() > deadline)
        {
            throw std::runtime_error(std::string("timed out: ") + what);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

class EmbeddedDriver
{
public:
    EmbeddedDriver()
    {
        char dir[] = "/tmp/aeronrs-cpp-XXXXXX";
        if (nullptr == mkdtemp(dir))
        {
            throw std::runtime_error("mkdtemp");
        }
        m_dir = dir;
        check(aeron_driver_context_init(&m_context), "driver context");
        check(aeron_driver_context_set_dir(m_context, m_dir.c_str()), "dir");
        check(aeron_driver_context_set_dir_delete_on_start(m_context, true), "delete on start");
        check(aeron_driver_context_set_dir_delete_on_shutdown(m_context, true), "delete on shutdown");
        check(aeron_driver_context_set_threading_mode(m_context, AERON_THREADING_MODE_SHARED), "threading");
        check(aeron_driver_context_set_shared_idle_strategy(m_context, "sleep-ns"), "idle");
        check(aeron_driver_context_set_ipc_term_buffer_length(m_context, 64 * 1024), "term length");
        check(aeron_driver_init(&m_driver, m_context), "driver init");
        check(aeron_driver_start(m_driver, false), "driver start");
    }

    ~EmbeddedDriver()
    {
        aeron_driver_close(m_driver);
        aeron_driver_context_close(m_context);
    }

    EmbeddedDriver(const EmbeddedDriver &) = delete;
    EmbeddedDriver &operator=(const EmbeddedDriver &) = delete;

    const std::string &dir() const
    {
        return m_dir;
    }

private:
    std::string m_dir;
    aeron_driver_context_t *m_context = nullptr;
    aeron_driver_t *m_driver = nullptr;
};

class Publication
{
public:
    explicit Publication(aeron_publication_t *publication) : m_publication(publication)
    {
    }

    ~Publication()
    {
        aeron_publication_close(m_publication, nullptr, nullptr);
    }

    Publication(const Publication &) = delete;
    Publication &operator=(const Publication &) = delete;

    int64_t offer(const std::string &message)
    {
        return aeron_publication_offer(
            m_publication, reinterpret_cast<const uint8_t *>(message.data()), message.size(), nullptr, nullptr);
    }

    bool connected() const
    {
        return aeron_publication_is_connected(m_publication);
    }

private:
    aeron_publication_t *m_publication;
};

using FragmentHandler = std::function<void(const uint8_t *, size_t, aeron_header_t *)>;

class Subscription
{
public:
    explicit Subscription(aeron_subscription_t *subscription) : m_subscription(subscription)
    {
        check(aeron_fragment_assembler_create(&m_assembler, &Subscription::onMessage, this), "assembler");
    }

    ~Subscription()
    {
        aeron_fragment_assembler_delete(m_assembler);
        aeron_subscription_close(m_subscription, nullptr, nullptr);
    }

    Subscription(const Subscription &) = delete;
    Subscription &operator=(const Subscription &) = delete;

    int poll(const FragmentHandler &handler, size_t limit)
    {
        m_handler = &handler;
        const int result = aeron_subscription_poll(m_subscription, aeron_fragment_assembler_handler, m_assembler, limit);
        m_handler = nullptr;
        check(result, "poll");
        return result;
    }

    int imageCount() const
    {
        return aeron_subscription_image_count(m_subscription);
    }

private:
    static void onMessage(void *clientd, const uint8_t *buffer, size_t length, aeron_header_t *header)
    {
        const auto *self = static_cast<Subscription *>(clientd);
        (*self->m_handler)(buffer, length, header);
    }

    aeron_subscription_t *m_subscription;
    aeron_fragment_assembler_t *m_assembler = nullptr;
    const FragmentHandler *m_handler = nullptr;
};

class Client
{
public:
    explicit Client(const std::string &dir)
    {
        aeron_context_t *context = nullptr;
        check(aeron_context_init(&context), "context");
        m_context.reset(context);
        check(aeron_context_set_dir(context, dir.c_str()), "client dir");
        check(aeron_context_set_idle_sleep_duration_ns(context, 1000000), "idle sleep");
        aeron_t *client = nullptr;
        check(aeron_init(&client, context), "init");
        m_client.reset(client);
        check(aeron_start(client), "start");
    }

    std::unique_ptr<Publication> addPublication(const char *channel, int32_t streamId)
    {
        aeron_async_add_publication_t *async = nullptr;
        check(aeron_async_add_publication(&async, m_client.get(), channel, streamId), "add publication");
        aeron_publication_t *publication = nullptr;
        await([&] {
            const int result = aeron_async_add_publication_poll(&publication, async);
            check(result, "add publication poll");
            return result == 1;
        }, "publication");
        return std::make_unique<Publication>(publication);
    }

    std::unique_ptr<Subscription> addSubscription(const char *channel, int32_t streamId)
    {
        aeron_async_add_subscription_t *async = nullptr;
        check(aeron_async_add_subscription(
            &async, m_client.get(), channel, streamId, nullptr, nullptr, nullptr, nullptr), "add subscription");
        aeron_subscription_t *subscription = nullptr;
        await([&] {
            const int result = aeron_async_add_subscription_poll(&subscription, async);
            check(result, "add subscription poll");
            return result == 1;
        }, "subscription");
        return std::make_unique<Subscription>(subscription);
    }

    aeron_t *get() const
    {
        return m_client.get();
    }

private:
    // Declared first, destroyed last: the context outlives the client that uses it.
    std::unique_ptr<aeron_context_t, Closer<aeron_context_t, aeron_context_close>> m_context;
    std::unique_ptr<aeron_t, Closer<aeron_t, aeron_close>> m_client;
};

}

TEST(ClientCpp, PublishesAndSubscribesThroughRaiiWrappers)
{
    EmbeddedDriver driver;
    Client client(driver.dir());
    auto subscription = client.addSubscription("aeron:ipc", 1001);
    auto publication = client.addPublication("aeron:ipc", 1001);
    await([&] { return publication->connected() && subscription->imageCount() == 1; }, "connected");

    const std::string big(3000, 'x'); // 3 fragments, reassembled
    const std::vector<std::string> messages = { "hello", big, "world" };
    for (const auto &message : messages)
    {
        await([&] { return publication->offer(message) > 0; }, "offer");
    }

    std::vector<std::string> received;
    std::vector<int64_t> positions;
    const FragmentHandler handler = [&](const uint8_t *buffer, size_t length, aeron_header_t *header)
    {
        received.emplace_back(reinterpret_cast<const char *>(buffer), length);
        positions.push_back(aeron_header_position(header));
        EXPECT_NE(aeron_header_context(header), nullptr);
    };
    await([&] {
        subscription->poll(handler, 10);
        return received.size() == messages.size();
    }, "received");
    EXPECT_EQ(received, messages);
    EXPECT_EQ(positions.front(), 64);
    // 3000 bytes: 2 x 1408 + (32 + 248 aligned to 32 = 288) = 3104.
    EXPECT_EQ(positions[1], 64 + 3104);
    EXPECT_EQ(positions.back(), 64 + 3104 + 64);
}

TEST(ClientCpp, CounterIsUpdatedThroughItsAddress)
{
    EmbeddedDriver driver;
    Client client(driver.dir());
    aeron_async_add_counter_t *async = nullptr;
    const std::string label = "cpp counter";
    ASSERT_EQ(aeron_async_add_counter(&async, client.get(), 1101, nullptr, 0, label.c_str(), label.size()), 0);
    aeron_counter_t *raw = nullptr;
    await([&] {
        const int result = aeron_async_add_counter_poll(&raw, async);
        check(result, "counter poll");
        return result == 1;
    }, "counter");
    std::unique_ptr<aeron_counter_t, void (*)(aeron_counter_t *)> counter(
        raw, [](aeron_counter_t *c) { aeron_counter_close(c, nullptr, nullptr); });
    aeron_counter_constants_t constants;
    ASSERT_EQ(aeron_counter_constants(counter.get(), &constants), 0);
    int64_t *value = aeron_counter_addr(counter.get());
    __atomic_store_n(value, 99, __ATOMIC_RELEASE);
    EXPECT_EQ(*aeron_counters_reader_addr(aeron_counters_reader(client.get()), constants.counter_id), 99);
}

TEST(ClientCpp, ErrorsArriveAsAeronCodes)
{
    EXPECT_EQ(aeron_publication_offer(nullptr, nullptr, 0, nullptr, nullptr), AERON_PUBLICATION_ERROR);
    EXPECT_EQ(aeron_errcode(), EINVAL);
    EXPECT_NE(std::strstr(aeron_errmsg(), "publication"), nullptr);
    aeron_context_t *context = nullptr;
    ASSERT_EQ(aeron_context_init(&context), 0);
    ASSERT_EQ(aeron_context_set_dir(context, "/tmp/aeronrs-cpp-no-driver"), 0);
    ASSERT_EQ(aeron_context_set_driver_timeout_ms(context, 100), 0);
    aeron_t *client = nullptr;
    EXPECT_EQ(aeron_init(&client, context), -1);
    EXPECT_EQ(aeron_errcode(), ETIMEDOUT);
    aeron_context_close(context);
}
