package dev.cosid.mybatisplus.app;

import com.baomidou.mybatisplus.core.mapper.BaseMapper;

/** MyBatis-Plus's mapper of {@link Invoice}. */
public interface InvoiceMapper extends BaseMapper<Invoice> {
}
